package dev.flowpipe.webapp;

import static dev.flowpipe.webapp.ReadModelFixture.doc;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.TestWebapp.Answer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The 8.9 incident statistics count instances exactly at a size where a distinct-count sketch does not: {@value
 * #INSTANCES} active instances of one definition, each with two open incidents of one error, and {@value #RESOLVED}
 * more whose incident of it is resolved. Counted before as the store's distinct count of the incidents' instance keys
 * (cardinality at precision 40,000), the scale run at a million answered 20,005 for 20,000 instances of one error, and
 * this fixture too is answered a count that is not {@value #INSTANCES}.
 */
@ExtendWith(SharedOpenSearch.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IncidentStatisticsExactTest {

  private static final int INSTANCES = 20_000;
  private static final int RESOLVED = 1_000;
  private static final String ERROR = "no retries left";
  private static final long DEFINITION = 1;

  private TestWebapp app;

  @BeforeAll
  void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    new SchemaManager(store, prefix, "1s").ensureSchema();
    String instances = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    String incidents = ReadModelIndex.INCIDENT.indexName(prefix);
    List<DocumentWrite> writes = new ArrayList<>();
    writes.add(doc(ReadModelIndex.PROCESS_DEFINITION.indexName(prefix), DEFINITION,
        Map.of("bpmnProcessId", "order", "version", 1, "name", "Order")));
    long key = 100_000;
    for (int i = 0; i < INSTANCES + RESOLVED; i++) {
      long instance = key++;
      writes.add(doc(instances, instance, Map.of("processDefinitionKey", DEFINITION, "bpmnProcessId", "order",
          "version", 1, "state", "ACTIVE", "incident", false, "startDate", ReadModelFixture.date(1))));
      boolean open = i < INSTANCES;
      writes.add(doc(incidents, key++, incident(instance, open ? "ACTIVE" : "RESOLVED")));
      if (open) {
        writes.add(doc(incidents, key++, incident(instance, "ACTIVE")));
      }
    }
    writes = ReadModelFixture.withIncidentsOnInstances(store, prefix, writes);
    for (int start = 0; start < writes.size(); start += 5_000) {
      assertThat(store.bulk(writes.subList(start, Math.min(start + 5_000, writes.size())), false).failures())
          .isEmpty();
    }
    for (ReadModelIndex index : ReadModelIndex.values()) {
      store.refresh(index.indexName(prefix));
    }
    app = TestWebapp.start(Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix));
  }

  private static Map<String, Object> incident(long instance, String state) {
    return Map.of("processInstanceKey", instance, "processDefinitionKey", DEFINITION, "bpmnProcessId", "order",
        "elementId", "task", "errorType", "JOB_NO_RETRIES", "errorMessage", ERROR, "errorMessageHash",
        ERROR.hashCode(), "state", state, "creationTime", ReadModelFixture.date(1));
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void byErrorCountsEveryInstanceWithTheErrorOnceExactly() {
    Answer answer = app.post("/v2/incidents/statistics/process-instances-by-error", "{}");

    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    JsonNode item = answer.json().path("items").get(0);
    assertThat(answer.json().path("items")).hasSize(1);
    assertThat(item.path("errorMessage").asText()).isEqualTo(ERROR);
    assertThat(item.path("errorHashCode").asInt()).isEqualTo(ERROR.hashCode());
    assertThat(item.path("activeInstancesWithErrorCount").asLong()).isEqualTo(INSTANCES);
  }

  @Test
  void byDefinitionCountsEveryInstanceOfTheDefinitionWithTheErrorOnceExactly() {
    Answer answer = app.post("/v2/incidents/statistics/process-instances-by-definition",
        "{\"filter\": {\"errorHashCode\": " + ERROR.hashCode() + "}}");

    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(answer.json().path("items")).hasSize(1);
    JsonNode item = answer.json().path("items").get(0);
    assertThat(item.path("processDefinitionKey").asText()).isEqualTo(String.valueOf(DEFINITION));
    assertThat(item.path("processDefinitionName").asText()).isEqualTo("Order");
    assertThat(item.path("activeInstancesWithErrorCount").asLong()).isEqualTo(INSTANCES);
  }
}
