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
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The batch resources over HTTP in the v2 shapes, on a web app with the operations on over the fixture's read model
 * (real OpenSearch): the batch and item searches with the advanced filters Camunda's client sends, suspension,
 * resumption and cancellation with their statuses (204, 404 unknown, 409 not allowed in the batch's state), and the
 * 400s naming the bad part. A batch held active is run by a second {@link BatchOperations} over the same store (as
 * another web app of a cluster), whose engine of ours holds its commands: the web app under test changes the state of
 * a batch it does not run.
 */
@ExtendWith(SharedOpenSearch.class)
class BatchOperationsApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static TestWebapp app;
  private static BatchOperations otherWebApp;
  private static final CountDownLatch RELEASED = new CountDownLatch(1);
  private static BatchOperationsTest.RecordingEngine held;
  /** A batch the other web app runs, its commands held from the second item on. */
  private static String active;
  /** A batch that ended (the web app under test has no gateway: its items failed). */
  private static String ended;

  @BeforeAll
  static void start(SearchStore store, EmbeddedSearchStore node) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "1s");
    app = TestWebapp.start(Map.of("flowpipe.store.url", node.url(),
        "flowpipe.store.index-prefix", prefix, "flowpipe.webapp.operations.enabled", true));
    held = new BatchOperationsTest.RecordingEngine(key -> {
      if (key > 1001L) {
        try {
          RELEASED.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException("stopped", e);
        }
      }
    });
    otherWebApp = otherWebApp(held);
    active = (String) otherWebApp.create(BatchOperations.Type.CANCEL_PROCESS_INSTANCE,
        JSON.readTree("{\"filter\": {}}"), "operator").get("batchOperationKey");
    await().atMost(Duration.ofSeconds(30)).until(() -> held.cancelled.size() == 2);

    TestWebapp.Answer created = app.post("/v2/process-instances/cancellation",
        "{\"filter\": {\"processInstanceKey\": {\"$in\": [\"1004\"]}, \"tags\": []}}");
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    ended = created.json().path("batchOperationKey").asText();
    await().atMost(Duration.ofSeconds(30)).until(() -> !"ACTIVE".equals(batch(ended).path("state").asText()));
  }

  @AfterAll
  static void stop() throws Exception {
    RELEASED.countDown();
    otherWebApp.close();
    app.close();
  }

  /** Another web app's batch operations over the same store, with an engine of ours. */
  private static BatchOperations otherWebApp(BatchOperationsTest.RecordingEngine engine) {
    return new BatchOperations(new BatchOperationStore(app.context().getBean(ReadModel.class)),
        app.context().getBean(SearchService.class), engine,
        new InstanceDeletion(app.context().getBean(ReadModel.class), Clock.systemUTC()), WrittenPositions.NONE,
        Clock.systemUTC(),
        Executors.newSingleThreadScheduledExecutor(), new SplittableRandom(),
        new BatchOperations.Settings(1, 100, Duration.ofSeconds(15), Duration.ofMillis(200)));
  }

  private static JsonNode batch(String key) {
    return app.get("/v2/batch-operations/" + key).json();
  }

  @Nested
  class Searches {

    @Test
    void theBatchSearchTakesTheClientsAdvancedFiltersWithTheirEmptyLists() {
      JsonNode found = app.search("batch-operations", """
          {"filter": {"state": {"$eq": "ACTIVE", "$in": [], "$notIn": []},
                      "operationType": {"$in": ["CANCEL_PROCESS_INSTANCE"], "$notIn": []},
                      "batchOperationKey": {"$in": ["%s", "%s"]}}}""".formatted(active, ended));

      assertThat(TestWebapp.values(found, "batchOperationKey")).containsExactly(active);
      assertThat(found.path("page").path("totalItems").asLong()).isEqualTo(1);
      JsonNode batch = found.path("items").get(0);
      assertThat(batch.path("batchOperationType").asText()).isEqualTo("CANCEL_PROCESS_INSTANCE");
      assertThat(batch.path("operationsTotalCount").asInt()).isEqualTo(10);
      assertThat(batch.has("user")).as("kept internal: " + batch).isFalse();
      assertThat(batch.has("filter")).isFalse();
    }

    @Test
    void theBatchSearchSortsAndPages() {
      String cancellations = "\"filter\": {\"operationType\": \"CANCEL_PROCESS_INSTANCE\", \"batchOperationKey\":"
          + " {\"$in\": [\"" + active + "\", \"" + ended + "\"]}}";
      JsonNode all = app.search("batch-operations", "{" + cancellations + ", \"sort\": [{\"field\":"
          + " \"batchOperationKey\", \"order\": \"DESC\"}], \"page\": {\"from\": 0, \"limit\": 1}}");

      assertThat(all.path("page").path("totalItems").asLong()).isEqualTo(2);
      // the ended batch was created after the active one: its key (creation time first) is the greater
      assertThat(TestWebapp.values(all, "batchOperationKey")).containsExactly(ended);
      assertThat(TestWebapp.values(app.search("batch-operations", "{" + cancellations + ", \"page\": {\"from\": 1,"
          + " \"limit\": 1},"
          + " \"sort\": [{\"field\": \"batchOperationKey\", \"order\": \"DESC\"}]}"), "batchOperationKey"))
          .containsExactly(active);
      assertThat(TestWebapp.values(app.search("batch-operations", "{\"filter\": {\"batchOperationKey\": {\"$neq\": \""
          + active + "\", \"$in\": [\"" + active + "\", \"" + ended + "\"]}}}"), "batchOperationKey"))
          .containsExactly(ended);
    }

    @Test
    void theItemSearchTakesAdvancedFiltersOnBatchItemInstanceAndState() {
      JsonNode done = app.search("batch-operation-items", "{\"filter\": {\"batchOperationKey\": {\"$eq\": \""
          + active + "\", \"$in\": [], \"$notIn\": []}, \"state\": {\"$in\": [\"COMPLETED\"]}}}");
      assertThat(TestWebapp.values(done, "processInstanceKey")).containsExactly("1001");
      assertThat(done.path("items").get(0).path("operationType").asText()).isEqualTo("CANCEL_PROCESS_INSTANCE");
      assertThat(done.path("items").get(0).has("kind")).isFalse();

      JsonNode one = app.search("batch-operation-items", "{\"filter\": {\"processInstanceKey\": \"1007\","
          + " \"batchOperationKey\": \"" + active + "\"}}");
      assertThat(TestWebapp.values(one, "itemKey")).containsExactly("1007");
      assertThat(TestWebapp.values(app.search("batch-operation-items", "{\"filter\": {\"batchOperationKey\": \""
          + ended + "\"}}"), "state")).containsExactly("FAILED");
    }

    @Test
    void aBadFilterSortOrPageIsA400NamingIt() {
      assertBadRequest("/v2/batch-operations/search", "{\"filter\": {\"state\": {\"$eq\": \"RUNNING\"}}}",
          "filter.state.$eq");
      assertBadRequest("/v2/batch-operations/search", "{\"filter\": {\"owner\": \"x\"}}", "filter.owner");
      assertBadRequest("/v2/batch-operations/search", "{\"sort\": [{\"field\": \"user\"}]}", "sort[0].field");
      assertBadRequest("/v2/batch-operations/search", "{\"page\": {\"limit\": 5000}}", "page.limit");
      assertBadRequest("/v2/batch-operation-items/search", "{\"filter\": {\"state\": \"DONE\"}}", "filter.state");
      assertBadRequest("/v2/batch-operation-items/search", "{\"filter\": {\"itemKey\": {\"$gt\": 1}}}",
          "filter.itemKey.$gt");
    }
  }

  @Nested
  class StateChanges {

    @Test
    void anUnknownBatchIsA404ForEachChange() {
      for (String change : List.of("suspension", "resumption", "cancellation")) {
        TestWebapp.Answer answer = app.post("/v2/batch-operations/42/" + change, "{}");
        assertThat(answer.status()).as(change + ": " + answer.body()).isEqualTo(404);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.json().path("detail").asText()).contains("42");
      }
    }

    @Test
    void aChangeTheBatchsStateDoesNotAllowIsA409NamingTheState() {
      for (String change : List.of("suspension", "resumption", "cancellation")) {
        TestWebapp.Answer answer = app.post("/v2/batch-operations/" + ended + "/" + change, "{}");
        assertThat(answer.status()).as(change + ": " + answer.body()).isEqualTo(409);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.json().path("detail").asText()).contains(batch(ended).path("state").asText());
      }
    }

    @Test
    void aBatchAnotherWebAppRunsIsSuspendedResumedAndCancelledHere() throws Exception {
      CountDownLatch released = new CountDownLatch(1);
      BatchOperationsTest.RecordingEngine engine = new BatchOperationsTest.RecordingEngine(key -> {
        if (key > 1001L) {
          try {
            released.await();
          } catch (InterruptedException e) {
            throw new IllegalStateException("stopped", e);
          }
        }
      });
      try (BatchOperations runner = otherWebApp(engine)) {
        String key = (String) runner.create(BatchOperations.Type.CANCEL_PROCESS_INSTANCE, JSON.readTree(
            "{\"filter\": {\"processInstanceKey\": {\"$in\": [\"1001\", \"1004\", \"1007\"]}}}"), "operator")
            .get("batchOperationKey");
        await().atMost(Duration.ofSeconds(30)).until(() -> engine.cancelled.size() == 2);

        assertThat(app.post("/v2/batch-operations/" + key + "/resumption", "{}").status()).isEqualTo(409);
        assertThat(app.post("/v2/batch-operations/" + key + "/suspension", "{}").status()).isEqualTo(204);
        assertThat(batch(key).path("state").asText()).isEqualTo("SUSPENDED");
        assertThat(app.post("/v2/batch-operations/" + key + "/suspension", "{}").status()).isEqualTo(409);
        assertThat(app.post("/v2/batch-operations/" + key + "/resumption", "{}").status()).isEqualTo(204);
        assertThat(batch(key).path("state").asText()).isEqualTo("ACTIVE");

        assertThat(app.post("/v2/batch-operations/" + key + "/cancellation", "{}").status()).isEqualTo(204);
        released.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> app.search("batch-operation-items", "{\"filter\":"
            + " {\"batchOperationKey\": \"" + key + "\", \"state\": \"ACTIVE\"}}").path("page")
            .path("totalItems").asLong() == 0);
        JsonNode batch = batch(key);
        assertThat(batch.path("state").asText()).isEqualTo("CANCELED");
        assertThat(batch.path("endDate").isTextual()).isTrue();
        // the command in flight at the cancellation ended; nothing was sent after it
        assertThat(engine.cancelled).containsExactly(1001L, 1004L);
        assertThat(TestWebapp.values(app.search("batch-operation-items", "{\"filter\": {\"batchOperationKey\": \""
            + key + "\", \"state\": \"CANCELED\"}}"), "itemKey")).containsExactly("1007");
        assertThat(app.post("/v2/batch-operations/" + key + "/cancellation", "{}").status()).isEqualTo(409);
      }
    }
  }

  @Nested
  class MigrationAndModificationRequests {

    @Test
    void aBadMoveInstructionOrMigrationPlanIsA400NamingItsPart() {
      assertBadRequest("/v2/process-instances/modification", "{\"filter\": {}, \"moveInstructions\": []}",
          "moveInstructions");
      assertBadRequest("/v2/process-instances/modification",
          "{\"filter\": {}, \"moveInstructions\": [{\"sourceElementId\": \"task\", \"targetElementId\": 3}]}",
          "moveInstructions[0].targetElementId");
      assertBadRequest("/v2/process-instances/migration", "{\"filter\": {}}", "migrationPlan");
      assertBadRequest("/v2/process-instances/migration", "{\"filter\": {}, \"migrationPlan\":"
          + " {\"targetProcessDefinitionKey\": \"2\", \"mappingInstructions\": []}}", "migrationPlan.mappingInstructions");
      assertBadRequest("/v2/process-instances/migration", "{\"filter\": {\"state\": \"NOPE\"}, \"migrationPlan\":"
          + " {\"targetProcessDefinitionKey\": \"2\", \"mappingInstructions\": [{\"sourceElementId\": \"a\","
          + " \"targetElementId\": \"b\"}]}}", "filter.state");
    }

    @Test
    void aBatchMigrationIsCreatedInTheV2Shape() {
      TestWebapp.Answer answer = app.post("/v2/process-instances/migration", "{\"filter\": {\"processInstanceKey\":"
          + " \"1010\"}, \"migrationPlan\": {\"targetProcessDefinitionKey\": \"3\", \"mappingInstructions\":"
          + " [{\"sourceElementId\": \"task\", \"targetElementId\": \"task\"}]}}");

      assertThat(answer.status()).as(answer.body()).isEqualTo(200);
      assertThat(answer.json().path("batchOperationType").asText()).isEqualTo("MIGRATE_PROCESS_INSTANCE");
      assertThat(answer.json().path("batchOperationKey").asText()).matches("[0-9]+");
    }
  }

  private static void assertBadRequest(String path, String body, String part) {
    TestWebapp.Answer answer = app.post(path, body);
    assertThat(answer.status()).as(body + " -> " + answer.body()).isEqualTo(400);
    assertThat(answer.json().path("part").asText()).as(answer.body()).isEqualTo(part);
  }
}
