package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.batch.BatchOperationStore;
import dev.flowpipe.webapp.batch.BatchOperations;
import dev.flowpipe.webapp.operations.InstanceDeletion;
import dev.flowpipe.webapp.operations.WrittenPositions;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code flowpipe.webapp.search.total-items-cap} on a real OpenSearch holding more matches than the cap (the fixture's
 * 30 instances, 10 of them active, the cap set to 3): a page of the API says {@code totalItems} 3 and
 * {@code hasMoreTotalItems}, with the same items as an exact count's web app; a count ({@code page.limit: 0}) and a
 * search within the cap stay exact; paging by cursor still reaches every item; and a batch operation, which pages its
 * matches through the same search service, still takes every active instance, not the capped count.
 */
@ExtendWith(SharedOpenSearch.class)
class TotalItemsCapTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BY_KEY = "\"sort\": [{\"field\": \"processInstanceKey\"}]";

  private static TestWebapp capped;
  private static TestWebapp exact;

  @BeforeAll
  static void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "1s");
    capped = TestWebapp.start(Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix,
        "flowpipe.webapp.search.total-items-cap", 3));
    exact = TestWebapp.start(Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix,
        "flowpipe.webapp.search.total-items-cap", 0));
  }

  @AfterAll
  static void stop() {
    capped.close();
    exact.close();
  }

  @Test
  void aPageSaysTheCapAndThatThereAreMoreWithTheSameItems() {
    String request = "{" + BY_KEY + ", \"page\": {\"limit\": 2}}";
    JsonNode page = capped.search("process-instances", request);
    JsonNode all = exact.search("process-instances", request);

    assertThat(page.path("page").path("totalItems").asLong()).isEqualTo(3);
    assertThat(page.path("page").path("hasMoreTotalItems").asBoolean()).isTrue();
    assertThat(all.path("page").path("totalItems").asLong()).isEqualTo(30);
    assertThat(all.path("page").path("hasMoreTotalItems").asBoolean()).isFalse();
    assertThat(TestWebapp.values(page, "processInstanceKey")).containsExactly("1000", "1001")
        .isEqualTo(TestWebapp.values(all, "processInstanceKey"));
  }

  @Test
  void aCountAndASearchWithinTheCapAreExact() {
    JsonNode count = capped.search("process-instances", "{\"filter\": {\"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}}");
    assertThat(count.path("page").path("totalItems").asLong()).isEqualTo(10);
    assertThat(count.path("page").path("hasMoreTotalItems").asBoolean()).isFalse();

    JsonNode few = capped.search("process-instances",
        "{\"filter\": {\"processInstanceKey\": {\"$in\": [\"1000\", \"1001\"]}}, \"page\": {\"limit\": 10}}");
    assertThat(few.path("page").path("totalItems").asLong()).isEqualTo(2);
    assertThat(few.path("page").path("hasMoreTotalItems").asBoolean()).isFalse();
  }

  @Test
  void pagingByCursorReachesEveryItemPastTheCap() {
    List<String> keys = new ArrayList<>();
    String after = null;
    while (true) {
      JsonNode page = capped.search("process-instances", "{" + BY_KEY + ", \"page\": {\"limit\": 4"
          + (after == null ? "" : ", \"after\": \"" + after + "\"") + "}}");
      if (page.path("items").isEmpty()) {
        break;
      }
      keys.addAll(TestWebapp.values(page, "processInstanceKey"));
      after = page.path("page").path("endCursor").asText();
    }
    assertThat(keys).hasSize(30).doesNotHaveDuplicates();
  }

  @Test
  void aBatchOperationTakesEveryMatchNotTheCappedCount() throws Exception {
    BatchOperationsTest.RecordingEngine engine = new BatchOperationsTest.RecordingEngine(key -> {});
    ReadModel readModel = capped.context().getBean(ReadModel.class);
    try (BatchOperations batches = new BatchOperations(new BatchOperationStore(readModel),
        capped.context().getBean(SearchService.class), engine, new InstanceDeletion(readModel, Clock.systemUTC()),
        WrittenPositions.NONE, Clock.systemUTC(), Executors.newSingleThreadScheduledExecutor(),
        new SplittableRandom(), new BatchOperations.Settings(1, 100, Duration.ofSeconds(15), Duration.ofMillis(200)))) {
      Map<String, Object> batch = batches.create(BatchOperations.Type.CANCEL_PROCESS_INSTANCE,
          JSON.readTree("{\"filter\": {}}"), "operator");

      JsonNode active = exact.search("process-instances",
          "{\"filter\": {\"state\": \"ACTIVE\"}, " + BY_KEY + ", \"page\": {\"limit\": 100}}");
      List<Long> expected = TestWebapp.values(active, "processInstanceKey").stream().map(Long::valueOf).toList();
      assertThat(expected).hasSize(10);
      assertThat(((Number) batch.get("operationsTotalCount")).longValue()).isEqualTo(10);
      await().atMost(Duration.ofSeconds(30)).until(() -> engine.cancelled.size() >= expected.size());
      assertThat(engine.cancelled.stream().sorted().collect(Collectors.toList())).isEqualTo(expected);
    }
  }
}
