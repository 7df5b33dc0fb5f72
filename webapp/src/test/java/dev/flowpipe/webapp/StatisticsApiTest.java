package dev.flowpipe.webapp;

import static dev.flowpipe.webapp.ReadModelFixture.doc;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.TestWebapp.Answer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The per-element statistics on a real OpenSearch holding {@link ReadModelFixture} and, for definition 1, the element
 * instances of three more instances: 1002 (start completed, task terminated), 1003 (start, task and end completed),
 * 1004 (start completed, task active); the fixture's 1001 has its start completed and its task active with an incident.
 */
@ExtendWith(SharedOpenSearch.class)
class StatisticsApiTest {

  private static TestWebapp app;

  @BeforeAll
  static void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "1s");
    String elements = ReadModelIndex.FLOW_NODE_INSTANCE.indexName(prefix);
    List<DocumentWrite> writes = new ArrayList<>();
    long key = 5400;
    writes.add(element(elements, key++, 1002, "start", "COMPLETED"));
    writes.add(element(elements, key++, 1002, "task", "TERMINATED"));
    writes.add(element(elements, key++, 1003, "start", "COMPLETED"));
    writes.add(element(elements, key++, 1003, "task", "COMPLETED"));
    writes.add(element(elements, key++, 1003, "end", "COMPLETED"));
    writes.add(element(elements, key++, 1004, "start", "COMPLETED"));
    writes.add(element(elements, key, 1004, "task", "ACTIVE"));
    store.bulk(writes, true);
    app = TestWebapp.start(Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix));
  }

  private static DocumentWrite element(String index, long key, long instance, String elementId, String state) {
    return doc(index, key, Map.of("processInstanceKey", instance, "processDefinitionKey", 1, "bpmnProcessId", "order",
        "elementId", elementId, "state", state, "startDate", ReadModelFixture.date(1)));
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  private static JsonNode ok(Answer answer) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json();
  }

  /** elementId: active/canceled/incidents/completed. */
  private static List<String> counts(JsonNode answer) {
    List<String> counts = new ArrayList<>();
    answer.path("items").forEach(item -> counts.add(item.path("elementId").asText() + ": " + item.path("active").asLong()
        + "/" + item.path("canceled").asLong() + "/" + item.path("incidents").asLong() + "/"
        + item.path("completed").asLong()));
    return counts;
  }

  @Test
  void countsEachElementsInstancesOfADefinitionByStateWithIncidentsApart() {
    JsonNode answer = ok(app.post("/v2/process-definitions/1/statistics/element-instances", "{}"));

    assertThat(counts(answer)).containsExactly("end: 0/0/0/1", "start: 0/0/0/4", "task: 1/1/1/1");
  }

  @Test
  void takesNoBodyAndAnswersNothingForADefinitionWithoutElementInstances() {
    assertThat(counts(ok(app.post("/v2/process-definitions/1/statistics/element-instances", "")))).hasSize(3);
    assertThat(ok(app.post("/v2/process-definitions/3/statistics/element-instances", "{}")).path("items")).isEmpty();
  }

  @Test
  void narrowsToTheInstancesOfTheFilterAndWaitsForConsistencyFirst() {
    JsonNode answer = ok(app.post("/v2/process-definitions/1/statistics/element-instances",
        "{\"filter\": {\"processInstanceKey\": {\"$in\": [\"1001\", \"1002\"]}},"
            + " \"consistency\": {\"processInstanceKey\": \"1002\", \"timeout\": \"2s\"}}"));

    assertThat(counts(answer)).containsExactly("start: 0/0/0/2", "task: 0/1/1/0");
  }

  /** Camunda's 8.8 Java client sends these empty lists with every statistics filter. */
  @Test
  void theEmptyListsCamundasClientSendsConstrainNothing() {
    JsonNode answer = ok(app.post("/v2/process-definitions/1/statistics/element-instances",
        "{\"filter\": {\"processInstanceKey\": {\"$in\": [\"1001\", \"1002\"], \"$notIn\": []},"
            + " \"$or\": [], \"variables\": [], \"tags\": []}}"));

    assertThat(counts(answer)).containsExactly("start: 0/0/0/2", "task: 0/1/1/0");
  }

  @Test
  void anEmptyListOfAFieldTheStatisticsDoNotTakeIsStillRefused() {
    Answer answer = app.post("/v2/process-definitions/1/statistics/element-instances", "{\"filter\": {\"state\": []}}");

    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.json().path("part").asText()).isEqualTo("filter.state");
  }

  @Test
  void countsTheElementsOfOneInstance() {
    assertThat(counts(ok(app.get("/v2/process-instances/1003/statistics/element-instances"))))
        .containsExactly("end: 0/0/0/1", "start: 0/0/0/1", "task: 0/0/0/1");
  }

  @Test
  void aFilterFieldOfTheInstanceThatElementsDoNotShareIsRefusedNamingIt() {
    Answer answer = app.post("/v2/process-definitions/1/statistics/element-instances", "{\"filter\": {\"state\": \"ACTIVE\"}}");

    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.json().path("part").asText()).isEqualTo("filter.state");
  }

  @Test
  void aKeyThatIsNoNumberIs400() {
    Answer answer = app.get("/v2/process-instances/abc/statistics/element-instances");

    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.json().path("part").asText()).isEqualTo("processInstanceKey");
  }

  @Test
  void countsActiveInstancesPerProcessWithAndWithoutIncidentsWithTheLatestNameSortedAndPaged() {
    JsonNode all = ok(app.post("/v2/process-definitions/statistics/process-instances", "{}"));
    JsonNode page = ok(app.post("/v2/process-definitions/statistics/process-instances",
        "{\"sort\": [{\"field\": \"activeInstancesWithoutIncidentCount\", \"order\": \"asc\"}], \"page\": {\"from\": 1, \"limit\": 1}}"));

    // active: i % 3 == 1; order i < 20: 1 4 7 10 13 16 19 (incidents 1 13), payment: 22 25 28 (incident 25)
    List<String> rows = new ArrayList<>();
    all.path("items").forEach(item -> rows.add(item.path("processDefinitionId").asText() + " "
        + item.path("latestProcessDefinitionName").asText() + " " + item.path("hasMultipleVersions").asBoolean() + " "
        + item.path("activeInstancesWithoutIncidentCount").asLong() + "/" + item.path("activeInstancesWithIncidentCount").asLong()));
    assertThat(rows).containsExactly("order Order true 5/2", "payment Payment false 2/1");
    assertThat(all.path("page").path("totalItems").asLong()).isEqualTo(2);
    assertThat(page.path("items")).hasSize(1);
    assertThat(page.path("items").get(0).path("processDefinitionId").asText()).isEqualTo("order");
  }

  @Test
  void aSortFieldTheProcessStatisticsDoNotHaveIsRefusedNamingIt() {
    Answer answer = app.post("/v2/process-definitions/statistics/process-instances", "{\"sort\": [{\"field\": \"name\"}]}");

    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.json().path("part").asText()).isEqualTo("sort[0].field");
  }
}
