package dev.flowpipe.node.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.node.webapp.Http.Answer;
import dev.flowpipe.node.webapp.SharedWebappNode.Runs;
import dev.flowpipe.webapp.config.LiveProperties;
import dev.flowpipe.webapp.readmodel.ReadModel;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/** The web app served by a real node, over data the exporter wrote from real BPMN runs. */
@ExtendWith(SharedWebappNode.class)
@ResourceLock(SharedWebappNode.LOCK)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebappOnNodeTest {

  private Runs runs;

  @BeforeAll
  void awaitTheRuns(Runs runs) {
    this.runs = runs;
    // the incident and the completion are the last things the runs did: once both are searchable, all is
    await().atMost(Duration.ofSeconds(30)).until(() ->
        total("process-instances", "{\"filter\": {\"hasIncident\": true, \"processDefinitionId\": \"webapp-fragile\"}}") == 1
            && total("process-instances", "{\"filter\": {\"state\": \"COMPLETED\", \"processDefinitionId\": \"webapp-order\"}}") == 1);
  }

  private JsonNode search(String entity, String request) {
    Answer answer = Http.post(runs.baseUrl() + "/v2/" + entity + "/search", request);
    assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
    return answer.json();
  }

  private long total(String entity, String request) {
    return search(entity, request).path("page").path("totalItems").asLong();
  }

  private static List<String> values(JsonNode answer, String field) {
    List<String> values = new ArrayList<>();
    answer.path("items").forEach(item -> values.add(item.path(field).asText()));
    return values;
  }

  @Test
  void usesTheNodesOwnStoreClient() {
    ReadModel readModel = runs.node().context().getBean(ReadModel.class);

    assertThat(readModel.store()).isSameAs(runs.node().store().client());
  }

  @Test
  void tellsOpenPagesOfAMoveWithoutARefreshOfItsOwnSinceItsExporterRefreshesEachBulk() {
    // the shared node keeps flowpipe.exporter.bulk.refresh at its default (on) and sets no live.refresh
    assertThat(runs.node().context().getBean(LiveProperties.class).refresh()).isFalse();
  }

  @Test
  void findsTheDeployedDefinitionsAndTheirXml() {
    JsonNode definitions = search("process-definitions", "{\"filter\": {\"processDefinitionId\": {\"$like\": \"webapp-*\"}}, \"sort\": [{\"field\": \"processDefinitionId\"}]}");

    assertThat(values(definitions, "processDefinitionId")).containsExactly("webapp-fragile", "webapp-order");
    assertThat(values(definitions, "name")).containsExactly("Webapp fragile", "Webapp order");
    String key = definitions.path("items").get(1).path("processDefinitionKey").asText();
    Answer xml = Http.get(runs.baseUrl() + "/v2/process-definitions/" + key + "/xml");
    assertThat(xml.status()).isEqualTo(200);
    assertThat(xml.raw().body()).contains("id=\"webapp-order\"").contains("id=\"ship\"");
  }

  @Test
  void findsTheInstancesByStateAndTheOneWithTheIncident() {
    List<String> orders = runs.orderInstances().stream().map(String::valueOf).toList();

    assertThat(values(search("process-instances", "{\"filter\": {\"processDefinitionId\": \"webapp-order\", \"state\": \"ACTIVE\"}}"), "processInstanceKey"))
        .containsExactlyInAnyOrderElementsOf(orders.subList(1, 3));
    assertThat(values(search("process-instances", "{\"filter\": {\"processDefinitionId\": \"webapp-order\", \"state\": {\"$neq\": \"ACTIVE\"}}}"), "processInstanceKey"))
        .containsExactly(orders.getFirst());
    // the runs' processes only: other classes on the shared node have incidents of their own
    JsonNode withIncident = search("process-instances", "{\"filter\": {\"hasIncident\": true, \"processDefinitionId\": "
        + "{\"$in\": [\"webapp-order\", \"webapp-fragile\"]}}}");
    assertThat(values(withIncident, "processInstanceKey")).containsExactly(String.valueOf(runs.fragileInstance()));
  }

  @Test
  void showsTheElementHistoryVariablesIncidentAndJobOfAnInstance() {
    String fragile = String.valueOf(runs.fragileInstance());
    String byInstance = "{\"filter\": {\"processInstanceKey\": \"" + fragile + "\"}, \"sort\": [{\"field\": \"startDate\"}]}";

    JsonNode elements = search("element-instances", byInstance);
    assertThat(values(elements, "elementId")).contains("begin", "charge");
    JsonNode charge = elements.path("items").get(values(elements, "elementId").indexOf("charge"));
    assertThat(charge.path("state").asText()).isEqualTo("ACTIVE");
    assertThat(charge.path("hasIncident").asBoolean()).isTrue();

    assertThat(values(search("variables", "{\"filter\": {\"processInstanceKey\": \"" + fragile + "\"}}"), "name")).containsExactly("card");

    JsonNode incidents = search("incidents", "{\"filter\": {\"processInstanceKey\": \"" + fragile + "\", \"state\": \"ACTIVE\"}}");
    assertThat(incidents.path("items")).singleElement().satisfies(incident -> {
      assertThat(incident.path("errorType").asText()).isEqualTo("JOB_NO_RETRIES");
      assertThat(incident.path("errorMessage").asText()).isEqualTo("card declined");
      assertThat(incident.path("elementInstanceKey").asText()).isEqualTo(charge.path("elementInstanceKey").asText());
    });

    JsonNode jobs = search("jobs", "{\"filter\": {\"processInstanceKey\": \"" + fragile + "\"}}");
    assertThat(jobs.path("items")).singleElement().satisfies(job -> {
      assertThat(job.path("state").asText()).isEqualTo("FAILED");
      assertThat(job.path("retries").asInt()).isZero();
      assertThat(job.path("type").asText()).isEqualTo("webapp-charge");
    });
    String incidentKey = incidents.path("items").get(0).path("incidentKey").asText();
    assertThat(Http.get(runs.baseUrl() + "/v2/incidents/" + incidentKey).json().path("state").asText()).isEqualTo("ACTIVE");
  }

  @Test
  void pagesThroughTheInstancesWithCursors() {
    String order = "\"filter\": {\"processDefinitionId\": {\"$in\": [\"webapp-order\", \"webapp-fragile\"]}}, \"sort\": [{\"field\": \"startDate\", \"order\": \"desc\"}]";
    JsonNode first = search("process-instances", "{" + order + ", \"page\": {\"limit\": 2}}");
    JsonNode second = search("process-instances", "{" + order + ", \"page\": {\"limit\": 2, \"after\": \"" + first.path("page").path("endCursor").asText() + "\"}}");
    JsonNode back = search("process-instances", "{" + order + ", \"page\": {\"limit\": 2, \"before\": \"" + second.path("page").path("startCursor").asText() + "\"}}");

    // other tests of this JVM may add instances to the shared node: at least the four of the runs are there
    assertThat(first.path("page").path("totalItems").asLong()).isGreaterThanOrEqualTo(4);
    assertThat(values(second, "processInstanceKey")).hasSize(2).doesNotContainAnyElementsOf(values(first, "processInstanceKey"));
    assertThat(values(back, "processInstanceKey")).isEqualTo(values(first, "processInstanceKey"));
  }

  @Nested
  class ReadYourWrites {

    /**
     * An instance of a process of this class's own (deployed once; the same model again is no new version), waiting at
     * its task: the runs' {@code webapp-order} counts, which other classes on the shared node check, stay as they are.
     */
    private long createWaiting(String orderId) {
      try (ZeebeClient client = runs.node().client()) {
        client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess("ryw-order").startEvent()
            .serviceTask("ship", t -> t.zeebeJobType("ryw-ship")).endEvent().done(), "ryw-order.bpmn").send().join();
        return client.newCreateInstanceCommand().bpmnProcessId("ryw-order").latestVersion()
            .variables(Map.of("orderId", orderId)).send().join().getProcessInstanceKey();
      }
    }

    @Test
    void aJustCreatedInstanceIsInTheFirstAnswer() {
      long key = createWaiting("fresh");

      Answer answer = Http.post(runs.baseUrl() + "/v2/process-instances/search",
          "{\"filter\": {\"processInstanceKey\": \"" + key + "\"}, \"consistency\": {\"processInstanceKey\": \"" + key + "\", \"timeout\": \"10s\"}}");

      assertThat(answer.status()).isEqualTo(200);
      assertThat(answer.header("Flowpipe-Consistency")).isEqualTo("reached");
      assertThat(answer.json().path("items")).singleElement()
          .satisfies(item -> assertThat(item.path("state").asText()).isEqualTo("ACTIVE"));
    }

    @Test
    void itsVariablesAreInTheFirstAnswerToo() {
      long key = createWaiting("fresh-too");

      Answer answer = Http.post(runs.baseUrl() + "/v2/variables/search",
          "{\"filter\": {\"processInstanceKey\": \"" + key + "\"}, \"consistency\": {\"processInstanceKey\": \"" + key + "\"}}");

      assertThat(answer.header("Flowpipe-Consistency")).isEqualTo("reached");
      assertThat(values(answer.json(), "value")).containsExactly("\"fresh-too\"");
    }
  }

  @Nested
  class InCamundaV2Terms {

    @Test
    void aCancelledInstanceIsTerminatedAndAJobAWorkerHoldsIsCreated() {
      long held;
      long cancelled;
      try (ZeebeClient client = runs.node().client()) {
        client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess("webapp-v2-states").startEvent()
            .serviceTask("work", t -> t.zeebeJobType("webapp-v2-work")).endEvent().done(), "webapp-v2-states.bpmn")
            .send().join();
        held = client.newCreateInstanceCommand().bpmnProcessId("webapp-v2-states").latestVersion().send().join()
            .getProcessInstanceKey();
        cancelled = client.newCreateInstanceCommand().bpmnProcessId("webapp-v2-states").latestVersion().send().join()
            .getProcessInstanceKey();
        SharedWebappNode.activate(client, "webapp-v2-work", 2);
        client.newCancelInstanceCommand(cancelled).send().join();
      }
      String instances = "{\"filter\": {\"processDefinitionId\": \"webapp-v2-states\", \"state\": \"TERMINATED\"}}";
      await().atMost(Duration.ofSeconds(30)).until(() -> total("process-instances", instances) == 1
          && total("jobs", "{\"filter\": {\"processInstanceKey\": \"" + cancelled + "\", \"state\": \"CANCELED\"}}") == 1);

      assertThat(values(search("process-instances", instances), "processInstanceKey")).containsExactly(String.valueOf(cancelled));
      assertThat(Http.get(runs.baseUrl() + "/v2/process-instances/" + cancelled).json().path("state").asText())
          .isEqualTo("TERMINATED");
      JsonNode heldJob = search("jobs", "{\"filter\": {\"processInstanceKey\": \"" + held + "\", \"state\": \"CREATED\"}}");
      assertThat(values(heldJob, "worker")).hasSize(1).allMatch(worker -> !worker.isBlank());
      JsonNode task = search("element-instances", "{\"filter\": {\"processInstanceKey\": \"" + cancelled + "\", \"elementId\": \"work\"}}");
      assertThat(values(task, "state")).containsExactly("TERMINATED");
      assertThat(values(task, "type")).containsExactly("SERVICE_TASK");
    }
  }

  @Nested
  class OnTheNodesPort {

    @Test
    void errorsAreProblems() {
      Answer unknown = Http.get(runs.baseUrl() + "/v2/process-instances/1");
      Answer bad = Http.post(runs.baseUrl() + "/v2/jobs/search", "{\"filter\": {\"state\": \"SLEEPING\"}}");

      assertThat(unknown.status()).isEqualTo(404);
      assertThat(bad.status()).isEqualTo(400);
      assertThat(bad.json().path("part").asText()).isEqualTo("filter.state");
    }

    @Test
    void theActuatorStillAnswersAndTheUiIsServed() {
      assertThat(Http.get(runs.baseUrl() + "/actuator/health").status()).isEqualTo(200);
      assertThat(Http.get(runs.baseUrl() + "/actuator/prometheus").status()).isEqualTo(200);
      assertThat(Http.get(runs.baseUrl() + "/").raw().body()).contains("app.js");
      assertThat(Http.get(runs.baseUrl() + "/openapi.yaml").status()).isEqualTo(200);
    }
  }
}
