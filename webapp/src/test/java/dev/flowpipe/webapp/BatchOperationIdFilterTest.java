package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.BatchOperationIndex;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.TestWebapp.Answer;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The process-instance filter {@code batchOperationId} (v2), on {@link ReadModelFixture}'s 30 instances and the items
 * of two batches in the batch index, as the batch operations write them: b1 touched 1001 and 1002, b2 touched 1002 and
 * 1003. The expected instances are written out here, from those items.
 */
@ExtendWith(SharedOpenSearch.class)
class BatchOperationIdFilterTest {

  private static TestWebapp app;

  @BeforeAll
  static void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "1s");
    String batches = BatchOperationIndex.name(prefix);
    store.createIndex(batches, BatchOperationIndex.BODY);
    var outcome = store.bulk(List.of(item(batches, "b1", 1, 1001), item(batches, "b1", 2, 1002),
        item(batches, "b2", 1, 1002), item(batches, "b2", 2, 1003),
        new DocumentWrite(batches, "b3", 1, Map.of("kind", "batch", "batchOperationKey", "b3", "state", "COMPLETED"))),
        true);
    assertThat(outcome.failures()).isEmpty();
    app = TestWebapp.start(Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix));
  }

  private static DocumentWrite item(String index, String batch, int n, long instance) {
    return new DocumentWrite(index, batch + "-" + n, 1, Map.of("kind", "item", "batchOperationKey", batch,
        "itemKey", String.valueOf(instance), "processInstanceKey", String.valueOf(instance), "state", "COMPLETED"));
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  private static String allBut(int... excluded) {
    return String.join(",", IntStream.range(0, 30).map(i -> 1000 + i)
        .filter(key -> IntStream.of(excluded).noneMatch(e -> e == key)).mapToObj(String::valueOf).toList());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
    "\"b1\" | 1001,1002",
    "{\"$eq\": \"b2\"} | 1002,1003",
    "{\"$in\": [\"b1\", \"b2\"]} | 1001,1002,1003",
    "{\"$like\": \"b*\"} | 1001,1002,1003",
    "{\"$exists\": true} | 1001,1002,1003",
    "{\"$eq\": \"b3\"} | ",
    "{\"$eq\": \"b1\", \"$neq\": \"b2\"} | 1001"
  })
  void findsTheInstancesTheNamedBatchesTouched(String condition, String expected) {
    JsonNode answer = app.search("process-instances",
        "{\"filter\": {\"batchOperationId\": " + condition + "}, \"page\": {\"limit\": 100}}");

    assertThat(TestWebapp.values(answer, "processInstanceKey"))
        .containsExactlyInAnyOrderElementsOf(expected == null ? List.of() : List.of(expected.split(",")));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
    "{\"$neq\": \"b1\"} | 1001,1002",
    "{\"$notIn\": [\"b1\", \"b2\"]} | 1001,1002,1003",
    "{\"$exists\": false} | 1001,1002,1003",
    "{\"$in\": [], \"$notIn\": []} | "
  })
  void excludesTheInstancesTheNamedBatchesTouched(String condition, String excluded) {
    JsonNode answer = app.search("process-instances",
        "{\"filter\": {\"batchOperationId\": " + condition + "}, \"page\": {\"limit\": 100}}");

    int[] out = excluded == null ? new int[0] : java.util.Arrays.stream(excluded.split(",")).mapToInt(Integer::parseInt).toArray();
    assertThat(String.join(",", TestWebapp.values(answer, "processInstanceKey"))).isEqualTo(allBut(out));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
    "{\"batchOperationId\": 7} | filter.batchOperationId",
    "{\"batchOperationId\": {\"$gt\": \"b1\"}} | filter.batchOperationId.$gt",
    "{\"batchOperationId\": {\"$in\": [\"b1\", 2]}} | filter.batchOperationId.$in[1]",
    "{\"$or\": [{\"batchOperationId\": \"b1\"}]} | filter.$or[0].batchOperationId"
  })
  void aBadConditionIsA400NamingItsPart(String filter, String part) {
    Answer answer = app.post("/v2/process-instances/search", "{\"filter\": " + filter + "}");

    assertThat(answer.status()).as(answer.body()).isEqualTo(400);
    assertThat(answer.json().path("part").asText()).isEqualTo(part);
  }
}
