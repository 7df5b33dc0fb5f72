package dev.flowpipe.schema.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The OpenSearch adapter against a real OpenSearch: the position guard that makes replays harmless. */
@ExtendWith(SharedOpenSearch.class)
class OpenSearchStoreTest {

  private static final String STRICT_INDEX_BODY =
      """
      {"settings": {"number_of_shards": 1, "number_of_replicas": 0},
       "mappings": {"dynamic": "strict", "_meta": {"schemaVersion": 1},
         "properties": {"state": {"type": "keyword"}, "count": {"type": "integer"}, "position": {"type": "long"}}}}
      """;

  private final SearchStore store;
  private String index;

  OpenSearchStoreTest(SearchStore store) {
    this.store = store;
  }

  @BeforeEach
  void createIndex() {
    index = SharedOpenSearch.uniquePrefix() + "-doc";
    assertThat(store.createIndex(index, STRICT_INDEX_BODY)).isTrue();
  }

  @Nested
  class Replace {

    @Test
    void writesTheDocumentWithItsPosition() {
      store.bulk(List.of(new DocumentWrite.Replace(index, "1", 10, Map.of("state", "A"))));

      assertThat(store.get(index, "1")).hasValue(Map.of("state", "A", "position", 10));
    }

    @Test
    void aReplayOfTheSameOrAnOlderPositionChangesNothingAndIsNoFailure() {
      store.bulk(List.of(new DocumentWrite.Replace(index, "1", 10, Map.of("state", "NEW"))));

      BulkOutcome replay =
          store.bulk(
              List.of(
                  new DocumentWrite.Replace(index, "1", 10, Map.of("state", "SAME")),
                  new DocumentWrite.Replace(index, "1", 5, Map.of("state", "OLD"))));

      assertThat(replay.allApplied()).isTrue();
      assertThat(store.get(index, "1")).hasValue(Map.of("state", "NEW", "position", 10));
    }
  }

  @Nested
  class Merge {

    @Test
    void createsAMissingDocumentAndMergesLaterFields() {
      store.bulk(List.of(new DocumentWrite.Merge(index, "7", 1, Map.of("state", "ACTIVE", "count", 1))));
      store.bulk(List.of(new DocumentWrite.Merge(index, "7", 2, Map.of("state", "COMPLETED"))));

      assertThat(store.get(index, "7")).hasValue(Map.of("state", "COMPLETED", "count", 1, "position", 2));
    }

    @Test
    void aRecordAtOrBelowTheStoredPositionChangesNothing() {
      store.bulk(
          List.of(
              new DocumentWrite.Merge(index, "7", 1, Map.of("state", "ACTIVE", "count", 1)),
              new DocumentWrite.Merge(index, "7", 2, Map.of("state", "COMPLETED"))));

      BulkOutcome replay =
          store.bulk(
              List.of(
                  new DocumentWrite.Merge(index, "7", 1, Map.of("state", "ACTIVE", "count", 99)),
                  new DocumentWrite.Merge(index, "7", 2, Map.of("state", "REPLAYED"))));

      assertThat(replay.allApplied()).isTrue();
      assertThat(store.get(index, "7")).hasValue(Map.of("state", "COMPLETED", "count", 1, "position", 2));
    }
  }

  @Test
  void aDocumentTheMappingRejectsIsReportedAsAPermanentItemFailureAndTheRestIsWritten() {
    BulkOutcome outcome =
        store.bulk(
            List.of(
                new DocumentWrite.Replace(index, "ok", 1, Map.of("state", "A")),
                new DocumentWrite.Replace(index, "bad", 2, Map.of("unknownField", "x"))));

    assertThat(outcome.applied()).isEqualTo(1);
    assertThat(outcome.failures()).singleElement().satisfies(failure -> {
      assertThat(failure.write().id()).isEqualTo("bad");
      assertThat(failure.status()).isEqualTo(400);
      assertThat(failure.retryable()).isFalse();
      assertThat(failure.reason()).contains("strict_dynamic_mapping_exception");
    });
    assertThat(store.get(index, "ok")).isPresent();
  }

  @Test
  void reportsGreenHealthAndItsVersion() {
    assertThat(store.health()).isIn("green", "yellow");
    assertThat(store.version()).startsWith("3.");
  }
}
