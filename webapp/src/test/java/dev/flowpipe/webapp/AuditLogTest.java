package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The audit log on a web app on its own over the shared OpenSearch (no gateway: the engine's operations answer 501
 * and are recorded as refused; deletion needs none): one entry per operation with the user, the time, the type, the
 * target and the outcome, a modification's elements, variables' names without their values, a batch once; the same
 * entries after the web app restarted; the 8.9 search's filters.
 */
@ExtendWith(SharedOpenSearch.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditLogTest {

  private static final Map<String, Object> USERS = Map.of(
      "flowpipe.webapp.security.basic-auth", true,
      "flowpipe.webapp.security.users[0].username", "reader",
      "flowpipe.webapp.security.users[0].password", "r",
      "flowpipe.webapp.security.users[1].username", "operator",
      "flowpipe.webapp.security.users[1].password", "o",
      "flowpipe.webapp.security.users[1].roles", "write");

  private Map<String, Object> settings;
  private TestWebapp app;
  private Instant before;
  private Instant after;
  private String batchKey;
  private long entriesBeforeTheRestart;

  @BeforeAll
  void operateThenRestart(EmbeddedSearchStore node, SearchStore store) {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "1s");
    // the exporter has made partition 1 durable past every fixture document (a deletion waits for that)
    store.put(ReadModelIndex.EXPORT_POSITION.indexName(prefix), ReadModelIndex.exportPositionId(1),
        Map.of("partitionId", 1, "position", 1_000_000L));
    settings = new LinkedHashMap<>(USERS);
    settings.put("flowpipe.store.url", node.url());
    settings.put("flowpipe.store.index-prefix", prefix);
    app = TestWebapp.start(settings).as("operator", "o");
    before = Instant.now();

    assertThat(app.post("/v2/process-instances/1000/deletion", "{}").status()).isEqualTo(204);
    assertThat(app.post("/v2/process-instances/1001/deletion", "{}").status()).isEqualTo(409);
    assertThat(app.send(HttpRequest.newBuilder(URI.create(app.baseUrl() + "/v2/element-instances/1003/variables"))
        .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(
            "{\"variables\": {\"secretName\": \"s3cr3t-value\"}}"))).status()).isEqualTo(501);
    assertThat(app.post("/v2/process-instances/1004/modification",
        "{\"activateInstructions\": [{\"elementId\": \"task\"}]}").status()).isEqualTo(501);
    TestWebapp.Answer batch = app.post("/v2/process-instances/deletion",
        "{\"filter\": {\"processDefinitionId\": \"payment\"}}");
    assertThat(batch.status()).as(batch.body()).isEqualTo(200);
    batchKey = batch.json().path("batchOperationKey").asText();
    await("the batch's end").atMost(Duration.ofSeconds(30)).until(
        () -> app.get("/v2/batch-operations/" + batchKey).json().path("state").asText(), s -> !"ACTIVE".equals(s));
    after = Instant.now();
    entriesBeforeTheRestart = total("{}");

    app.close();
    app = TestWebapp.start(settings).as("operator", "o");
  }

  @AfterAll
  void stop() {
    app.close();
  }

  private JsonNode search(String filter) {
    TestWebapp.Answer answer = app.post("/v2/audit-logs/search", "{\"filter\": " + filter + "}");
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json();
  }

  private long total(String filter) {
    return search(filter).path("page").path("totalItems").asLong();
  }

  private JsonNode only(String filter) {
    JsonNode items = search(filter).path("items");
    assertThat(items).as(filter).hasSize(1);
    return items.get(0);
  }

  @Nested
  class AnEntry {

    @Test
    void namesTheUserTheTimeTheOperationItsTargetAndItsOutcome() {
      JsonNode entry = only("{\"processInstanceKey\": \"1000\"}");

      assertThat(entry.path("operationType").asText()).isEqualTo("DELETE");
      assertThat(entry.path("entityType").asText()).isEqualTo("PROCESS_INSTANCE");
      assertThat(entry.path("entityKey").asText()).isEqualTo("1000");
      assertThat(entry.path("actorId").asText()).isEqualTo("operator");
      assertThat(entry.path("actorType").asText()).isEqualTo("USER");
      assertThat(entry.path("result").asText()).isEqualTo("SUCCESS");
      assertThat(Instant.parse(entry.path("timestamp").asText())).isBetween(before.minusMillis(1), after);
    }

    @Test
    void ofARefusedOperationIsAFailWithTheReason() {
      JsonNode entry = only("{\"processInstanceKey\": \"1001\"}");

      assertThat(entry.path("result").asText()).isEqualTo("FAIL");
      assertThat(entry.path("errorMessage").asText()).contains("not completed or terminated");
    }

    @Test
    void ofAModificationNamesTheElementsToActivate() {
      JsonNode entry = only("{\"operationType\": \"MODIFY\"}");

      assertThat(entry.path("processInstanceKey").asText()).isEqualTo("1004");
      assertThat(entry.path("details").path("activatedElementIds").get(0).asText()).isEqualTo("task");
      assertThat(entry.path("result").asText()).isEqualTo("FAIL"); // no gateway here: 501
    }

    @Test
    void ofVariablesNamesThemAndHoldsNoValue() {
      JsonNode entry = only("{\"entityType\": \"VARIABLE\"}");

      assertThat(entry.path("entityKey").asText()).isEqualTo("1003");
      // the scope is the instance itself (no element instance has the key): the instance's trail lists it
      assertThat(entry.path("processInstanceKey").asText()).isEqualTo("1003");
      assertThat(entry.path("details").path("variableNames").get(0).asText()).isEqualTo("secretName");
      assertThat(entry.toString()).doesNotContain("s3cr3t-value");
    }

    @Test
    void ofABatchIsOneForTheWholeBatch() {
      JsonNode entry = only("{\"entityType\": \"BATCH\"}");

      assertThat(entry.path("batchOperationKey").asText()).isEqualTo(batchKey);
      assertThat(entry.path("batchOperationType").asText()).isEqualTo("DELETE_PROCESS_INSTANCE");
      assertThat(app.get("/v2/batch-operations/" + batchKey).json().path("operationsTotalCount").asInt())
          .as("the batch had several items").isGreaterThan(1);
    }

    @Test
    void isReadByItsKey() {
      JsonNode entry = only("{\"processInstanceKey\": \"1000\"}");

      TestWebapp.Answer read = app.get("/v2/audit-logs/" + entry.path("auditLogKey").asText());

      assertThat(read.status()).isEqualTo(200);
      assertThat(read.json()).isEqualTo(entry);
      assertThat(app.get("/v2/audit-logs/no-such-entry").status()).isEqualTo(404);
    }
  }

  @Nested
  class AcrossARestart {

    @Test
    void eachOperationHasExactlyOneEntry() {
      assertThat(entriesBeforeTheRestart).isEqualTo(5);
      assertThat(total("{}")).isEqualTo(5);
      List<String> keys = new ArrayList<>();
      search("{}").path("items").forEach(item -> keys.add(item.path("auditLogKey").asText()));
      assertThat(keys).doesNotHaveDuplicates();
    }
  }

  @Nested
  class TheSearch {

    @Test
    void filtersByResultOperationTypeAndActor() {
      assertThat(total("{\"result\": {\"$in\": [\"FAIL\"]}}")).isEqualTo(3);
      assertThat(total("{\"result\": \"SUCCESS\", \"operationType\": {\"$eq\": \"DELETE\"}}")).isEqualTo(1);
      assertThat(total("{\"operationType\": {\"$in\": [], \"$notIn\": [\"DELETE\", \"MODIFY\"]}}")).isEqualTo(2);
      assertThat(total("{\"actorId\": \"operator\"}")).isEqualTo(5);
      assertThat(total("{\"actorId\": \"reader\"}")).isZero();
    }

    @Test
    void filtersByTime() {
      assertThat(total("{\"timestamp\": {\"$gte\": \"" + before + "\", \"$lte\": \"" + after + "\"}}")).isEqualTo(5);
      assertThat(total("{\"timestamp\": {\"$lt\": \"" + before + "\"}}")).isZero();
    }

    @Test
    void sortsNewestFirstWhenAsked() {
      JsonNode items = app.post("/v2/audit-logs/search", "{\"sort\": [{\"field\": \"timestamp\", \"order\": \"DESC\"}]}")
          .json().path("items");
      assertThat(items.get(0).path("entityType").asText()).isEqualTo("BATCH");
      assertThat(items.get(items.size() - 1).path("processInstanceKey").asText()).isEqualTo("1000");
    }

    @Test
    void namesAFieldItDoesNotHold() {
      TestWebapp.Answer answer = app.post("/v2/audit-logs/search", "{\"filter\": {\"nope\": \"x\"}}");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.body()).contains("filter.nope");
    }

    @Test
    void isOpenToReaders() {
      assertThat(app.as("reader", "r").post("/v2/audit-logs/search", "{}").status()).isEqualTo(200);
      app.as("operator", "o");
    }
  }
}
