package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.TestWebapp.Answer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The 8.9 statistics Operate's UI uses, on a real OpenSearch holding {@link ReadModelFixture} (its active order
 * instances: 1001, 1004, 1007 of definition 1, with an incident "no retries left" on 1001; 1010, 1013, 1016, 1019 of
 * definition 2, with an incident "boom" on 1013) and more incidents carrying their message's hash as the writer writes
 * it: "boom" twice on 1001 and once on 1013 (and once resolved on 1004), "io" on 1001, and {@value #SPREAD} other
 * errors once each on 1007, so that the errors span more than one page of the store's composite aggregation; the
 * instances hold their open incidents' hash codes as the writer keeps them
 * ({@link ReadModelFixture#withIncidentsOnInstances}), so 1001 and 1007 of definition 1 and 1013 of definition 2 have
 * incidents.
 */
@ExtendWith(SharedOpenSearch.class)
class IncidentAndVersionStatisticsApiTest {

  private static final int SPREAD = 1_050;
  private static TestWebapp app;

  @BeforeAll
  static void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "1s");
    String incidents = ReadModelIndex.INCIDENT.indexName(prefix);
    List<DocumentWrite> writes = new ArrayList<>();
    writes.add(incident(incidents, 9001, 1001, 1, "ACTIVE", "boom"));
    writes.add(incident(incidents, 9002, 1001, 1, "ACTIVE", "boom"));
    writes.add(incident(incidents, 9003, 1013, 2, "ACTIVE", "boom"));
    writes.add(incident(incidents, 9004, 1004, 1, "RESOLVED", "boom"));
    writes.add(incident(incidents, 9005, 1001, 1, "ACTIVE", "io"));
    for (int i = 0; i < SPREAD; i++) {
      writes.add(incident(incidents, 10_000 + i, 1007, 1, "ACTIVE", "error " + i));
    }
    var outcome = store.bulk(ReadModelFixture.withIncidentsOnInstances(store, prefix, writes), true);
    assertThat(outcome.failures()).isEmpty();
    app = TestWebapp.start(Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix));
  }

  private static DocumentWrite incident(String index, long key, long instance, long definition, String state,
      String message) {
    return ReadModelFixture.doc(index, key, Map.of("processInstanceKey", instance, "processDefinitionKey", definition,
        "bpmnProcessId", "order", "elementInstanceKey", key + 1, "elementId", "task", "errorType", "JOB_NO_RETRIES",
        "errorMessage", message, "errorMessageHash", message.hashCode(), "state", state, "tenantId", "<default>"));
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  private static JsonNode ok(Answer answer) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json();
  }

  @Nested
  class ByError {

    @Test
    void countsEachActiveInstanceOncePerErrorAndNoResolvedOne() {
      JsonNode answer = ok(app.post("/v2/incidents/statistics/process-instances-by-error",
          "{\"sort\": [{\"field\": \"activeInstancesWithErrorCount\", \"order\": \"desc\"}], \"page\": {\"limit\": 2}}"));

      JsonNode boom = answer.path("items").get(0);
      assertThat(boom.path("errorMessage").asText()).isEqualTo("boom");
      assertThat(boom.path("errorHashCode").asInt()).isEqualTo("boom".hashCode());
      assertThat(boom.path("activeInstancesWithErrorCount").asLong()).isEqualTo(2);
      assertThat(answer.path("items").get(1).path("activeInstancesWithErrorCount").asLong()).isEqualTo(1);
    }

    @Test
    void countsEveryErrorBeyondOneStorePage() {
      JsonNode answer = ok(app.post("/v2/incidents/statistics/process-instances-by-error", "{\"page\": {\"limit\": 0}}"));

      // boom, io, no retries left and the spread
      assertThat(answer.path("page").path("totalItems").asLong()).isEqualTo(SPREAD + 3);
    }

    @Test
    void sortsByMessageAndPagesByOffset() {
      JsonNode answer = ok(app.post("/v2/incidents/statistics/process-instances-by-error",
          "{\"sort\": [{\"field\": \"errorMessage\", \"order\": \"desc\"}], \"page\": {\"from\": 0, \"limit\": 2}}"));

      assertThat(answer.path("items").get(0).path("errorMessage").asText()).isEqualTo("no retries left");
      assertThat(answer.path("items").get(1).path("errorMessage").asText()).isEqualTo("io");
    }

    @Test
    void aFilterIsA400NamingIt() {
      Answer answer = app.post("/v2/incidents/statistics/process-instances-by-error", "{\"filter\": {}}");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.json().path("part").asText()).isEqualTo("filter");
    }
  }

  @Nested
  class ByDefinition {

    @Test
    void givesEachDefinitionWithTheErrorItsInstancesNameAndVersion() {
      JsonNode answer = ok(app.post("/v2/incidents/statistics/process-instances-by-definition",
          "{\"filter\": {\"errorHashCode\": " + "boom".hashCode() + "}}"));

      assertThat(answer.path("page").path("totalItems").asLong()).isEqualTo(2);
      JsonNode first = answer.path("items").get(0);
      assertThat(first.path("processDefinitionKey").asText()).isEqualTo("1");
      assertThat(first.path("processDefinitionId").asText()).isEqualTo("order");
      assertThat(first.path("processDefinitionName").asText()).isEqualTo("Order");
      assertThat(first.path("processDefinitionVersion").asInt()).isEqualTo(1);
      assertThat(first.path("activeInstancesWithErrorCount").asLong()).isEqualTo(1);
      JsonNode second = answer.path("items").get(1);
      assertThat(second.path("processDefinitionKey").asText()).isEqualTo("2");
      assertThat(second.path("processDefinitionVersion").asInt()).isEqualTo(2);
    }

    @Test
    void withoutTheErrorHashCodeIsA400NamingIt() {
      Answer answer = app.post("/v2/incidents/statistics/process-instances-by-definition", "{\"filter\": {}}");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.json().path("part").asText()).isEqualTo("filter.errorHashCode");
    }
  }

  @Nested
  class ByVersion {

    @Test
    void countsAProcesssActiveInstancesPerVersionWithAndWithoutIncidents() {
      JsonNode answer = ok(app.post("/v2/process-definitions/statistics/process-instances-by-version",
          "{\"filter\": {\"processDefinitionId\": \"order\"},"
              + " \"sort\": [{\"field\": \"processDefinitionVersion\", \"order\": \"desc\"}]}"));

      assertThat(answer.path("page").path("totalItems").asLong()).isEqualTo(2);
      JsonNode v2 = answer.path("items").get(0);
      assertThat(v2.path("processDefinitionKey").asText()).isEqualTo("2");
      assertThat(v2.path("processDefinitionVersion").asInt()).isEqualTo(2);
      assertThat(v2.path("processDefinitionName").asText()).isEqualTo("Order");
      assertThat(v2.path("activeInstancesWithIncidentCount").asLong()).isEqualTo(1);
      assertThat(v2.path("activeInstancesWithoutIncidentCount").asLong()).isEqualTo(3);
      JsonNode v1 = answer.path("items").get(1);
      assertThat(v1.path("activeInstancesWithIncidentCount").asLong()).isEqualTo(2);
      assertThat(v1.path("activeInstancesWithoutIncidentCount").asLong()).isEqualTo(1);
    }

    @Test
    void withoutAProcessIdIsA400NamingIt() {
      Answer answer = app.post("/v2/process-definitions/statistics/process-instances-by-version", "{}");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.json().path("part").asText()).isEqualTo("filter.processDefinitionId");
    }
  }
}
