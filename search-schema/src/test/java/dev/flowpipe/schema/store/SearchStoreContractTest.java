package dev.flowpipe.schema.store;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.StoreProxy;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every store adapter must do, run against a real node of each engine ({@code OpenSearchStoreTest},
 * {@code ElasticsearchStoreTest}): position-versioned writes that make replays harmless, real-time reads, item errors
 * sorted, requests that are too large reported as such, and the read-model schema.
 */
public abstract class SearchStoreContractTest {

  private static final String STRICT_INDEX_BODY =
      """
      {"settings": {"number_of_shards": 1, "number_of_replicas": 0},
       "mappings": {"dynamic": "strict", "_meta": {"schemaVersion": 1},
         "properties": {"state": {"type": "keyword"}, "count": {"type": "integer"}, "position": {"type": "long"}}}}
      """;

  private final SearchStore store;
  private final String url;
  private String index;

  /** @param url the store's URL, for tests that put a proxy in front of it */
  protected SearchStoreContractTest(SearchStore store, String url) {
    this.store = store;
    this.url = url;
  }

  @BeforeEach
  void createIndex() {
    index = SharedOpenSearch.uniquePrefix() + "-doc";
    assertThat(store.createIndex(index, STRICT_INDEX_BODY)).isTrue();
  }

  @Test
  void writesTheDocumentWithItsPosition() {
    BulkOutcome outcome = store.bulk(List.of(new DocumentWrite(index, "1", 10, Map.of("state", "A"))));

    assertThat(outcome.written()).hasSize(1);
    assertThat(store.get(index, "1")).hasValue(Map.of("state", "A", "position", 10));
  }

  @Test
  void aWriteOfTheSameOrAnOlderPositionIsSupersededAndChangesNothing() {
    store.bulk(List.of(new DocumentWrite(index, "1", 10, Map.of("state", "NEW"))));

    BulkOutcome replay =
        store.bulk(
            List.of(
                new DocumentWrite(index, "1", 10, Map.of("state", "SAME")),
                new DocumentWrite(index, "1", 5, Map.of("state", "OLD"))));

    assertThat(replay.allApplied()).isTrue();
    assertThat(replay.superseded()).hasSize(2);
    assertThat(store.get(index, "1")).hasValue(Map.of("state", "NEW", "position", 10));
  }

  @Test
  void readsManyDocumentsAtOnceInRealTimeSkippingMissingOnes() {
    store.bulk(
        List.of(
            new DocumentWrite(index, "a", 1, Map.of("state", "A")),
            new DocumentWrite(index, "b", 2, Map.of("state", "B"))));

    var found = store.getAll(index, List.of("a", "missing", "b"));

    assertThat(found).containsOnlyKeys("a", "b");
    assertThat(found.get("b")).containsEntry("state", "B").containsEntry("position", 2);
  }

  @Test
  void aBulkOverTheStoresRequestLimitIsReportedAsTooLarge() throws Exception {
    try (StoreProxy limited = new StoreProxy(url, null, null).limitBodyTo(200);
        SearchStore throughProxy = SearchStoreConnector.connect(StoreConnection.of(limited.url()))) {
      List<DocumentWrite> big = List.of(new DocumentWrite(index, "x", 1, Map.of("state", "y".repeat(500))));

      assertThatThrownBy(() -> throughProxy.bulk(big)).isInstanceOf(RequestTooLargeException.class);
    }
  }

  @Test
  void aDocumentTheMappingRejectsIsReportedAsAPermanentItemFailureAndTheRestIsWritten() {
    BulkOutcome outcome =
        store.bulk(
            List.of(
                new DocumentWrite(index, "ok", 1, Map.of("state", "A")),
                new DocumentWrite(index, "bad", 2, Map.of("unknownField", "x"))));

    assertThat(outcome.written()).hasSize(1);
    assertThat(outcome.failures()).singleElement().satisfies(failure -> {
      assertThat(failure.write().id()).isEqualTo("bad");
      assertThat(failure.status()).isEqualTo(400);
      assertThat(failure.retryable()).isFalse();
      assertThat(failure.reason()).contains("strict_dynamic_mapping_exception");
    });
    assertThat(store.get(index, "ok")).isPresent();
  }

  @Test
  void reportsGreenHealth() {
    assertThat(store.health()).isIn("green", "yellow");
  }

  @Test
  void takesTheReadModelSchema() {
    String prefix = SharedOpenSearch.uniquePrefix();

    new SchemaManager(store, prefix, "1s").ensureSchema();

    for (ReadModelIndex readModelIndex : ReadModelIndex.values()) {
      assertThat(store.mappingMeta(readModelIndex.indexName(prefix))).containsEntry("schemaVersion", 1);
    }
  }
}
