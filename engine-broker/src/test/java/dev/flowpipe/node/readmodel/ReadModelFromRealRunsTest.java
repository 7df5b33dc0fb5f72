package dev.flowpipe.node.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.exporter.ReadModelExporter;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.schema.store.StoreProduct;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.StoreProxy;
import dev.flowpipe.writer.config.WriterSettings;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.client.api.response.DeploymentEvent;
import io.camunda.zeebe.client.api.response.EvaluateDecisionResponse;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import io.camunda.zeebe.protocol.record.Record;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The read model from real engine records: BPMN runs on a real broker (service tasks, gateways, a sub-process, a call
 * activity, timer and message events, an incident and its resolution, variable updates, a cancellation), exported by
 * our exporter into a real OpenSearch; then the same recorded stream replayed from random earlier positions, with
 * partly applied bulks, must leave exactly the documents of one clean pass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReadModelFromRealRunsTest {

  private static final String PREFIX = "flowpipe";

  private static final BpmnModelInstance CHILD =
      Bpmn.createExecutableProcess("child").startEvent().serviceTask("child-task", t -> t.zeebeJobType("child-work"))
          .endEvent().done();

  private static final BpmnModelInstance MAIN =
      Bpmn.createExecutableProcess("main")
          .name("Main")
          .startEvent("start")
          .serviceTask("prepare", t -> t.name("Prepare the order").zeebeJobType("prepare"))
          .exclusiveGateway("route")
          .defaultFlow()
          .endEvent("skipped")
          .moveToNode("route")
          .conditionExpression("= x > 5")
          .parallelGateway("fork")
          .subProcess("sub")
          .embeddedSubProcess()
          .startEvent("sub-start")
          .serviceTask("inner", t -> t.zeebeJobType("inner"))
          .endEvent("sub-end")
          .subProcessDone()
          .parallelGateway("join")
          .moveToNode("fork")
          .callActivity("call", c -> c.zeebeProcessId("child"))
          .connectTo("join")
          .intermediateCatchEvent("wait", e -> e.timerWithDuration("PT0.1S"))
          .intermediateCatchEvent("msg", e -> e.message(m -> m.name("go").zeebeCorrelationKeyExpression("orderId")))
          .endEvent("end")
          .done();

  static final BpmnModelInstance FRAGILE =
      Bpmn.createExecutableProcess("fragile").startEvent().serviceTask("fail", t -> t.zeebeJobType("fragile"))
          .endEvent().done();

  static final BpmnModelInstance WAITING =
      Bpmn.createExecutableProcess("waiting").startEvent().serviceTask("never", t -> t.zeebeJobType("never"))
          .endEvent().done();

  /** A business rule task calling the DRD of test-support's flowpipe/dmn/dish.dmn ("dish" requires "season"). */
  static final BpmnModelInstance DECIDE =
      Bpmn.createExecutableProcess("decide").startEvent()
          .businessRuleTask("choose", t -> t.zeebeCalledDecisionId("dish").zeebeResultVariable("meal")).endEvent()
          .done();

  @TempDir static Path data;

  private TestNode node;
  private SearchStore store;
  private long mainKey;
  private long fragileKey;
  private long waitingKey;
  private long goMessageKey;
  private DeploymentEvent dmnDeployment;
  /** The definition the engine answered main's creation with. */
  private long mainDefinitionKey;
  private long decidedKey;
  private long undecidedKey;
  private EvaluateDecisionResponse standalone;

  @BeforeAll
  void runProcesses() {
    node =
        new TestNode(data)
            .with("flowpipe.exporter.variable-value-limit", 100)
            .with("flowpipe.broker.additional-exporters.recorder.class-name", RecordingExporter.class.getName())
            .start();
    store = node.store().client();
    try (ZeebeClient client = node.client()) {
      client.newDeployResourceCommand().addProcessModel(CHILD, "child.bpmn").addProcessModel(MAIN, "main.bpmn")
          .addProcessModel(FRAGILE, "fragile.bpmn").addProcessModel(WAITING, "waiting.bpmn").send().join();

      var main = client.newCreateInstanceCommand().bpmnProcessId("main").latestVersion()
          .variables(Map.of("orderId", "o-1", "note", "first")).send().join();
      mainKey = main.getProcessInstanceKey();
      mainDefinitionKey = main.getProcessDefinitionKey();
      complete(client, "prepare", Map.of("x", 10, "big", "y".repeat(300)));
      complete(client, "inner", Map.of());
      complete(client, "child-work", Map.of());
      client.newSetVariablesCommand(mainKey).variables(Map.of("note", "second")).send().join();
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
        goMessageKey = client.newPublishMessageCommand().messageName("go").correlationKey("o-1")
            .timeToLive(Duration.ofMinutes(1)).send().join().getMessageKey();
        return true;
      });

      fragileKey = client.newCreateInstanceCommand().bpmnProcessId("fragile").latestVersion().send().join()
          .getProcessInstanceKey();
      ActivatedJob fragileJob = activate(client, "fragile");
      client.newFailCommand(fragileJob.getKey()).retries(0).errorMessage("boom").send().join();
      Map<String, Object> incident = awaitIncident(fragileKey);
      assertThat(document(ReadModelIndex.PROCESS_INSTANCE, fragileKey))
          .as("the open incident shows on its instance").containsEntry("incident", true);
      client.newUpdateRetriesCommand(fragileJob.getKey()).retries(1).send().join();
      client.newResolveIncidentCommand(((Number) incident.get("key")).longValue()).send().join();
      complete(client, "fragile", Map.of());

      waitingKey = client.newCreateInstanceCommand().bpmnProcessId("waiting").latestVersion().send().join()
          .getProcessInstanceKey();
      activate(client, "never");
      client.newCancelInstanceCommand(waitingKey).send().join();

      dmnDeployment = client.newDeployResourceCommand().addResourceFromClasspath("flowpipe/dmn/dish.dmn")
          .addProcessModel(DECIDE, "decide.bpmn").send().join();
      // temperature 5: "Winter"; 4 guests match rule 1 of "dish" only
      decidedKey = client.newCreateInstanceCommand().bpmnProcessId("decide").latestVersion()
          .variables(Map.of("temperature", 5, "guests", 4)).send().join().getProcessInstanceKey();
      // 200 guests match rules 1 and 3, which the UNIQUE hit policy refuses: the evaluation fails, an incident opens
      undecidedKey = client.newCreateInstanceCommand().bpmnProcessId("decide").latestVersion()
          .variables(Map.of("temperature", 5, "guests", 200)).send().join().getProcessInstanceKey();
      awaitIncident(undecidedKey);
      client.newCancelInstanceCommand(undecidedKey).send().join();
      standalone = client.newEvaluateDecisionCommand().decisionId("dish")
          .variables(Map.of("temperature", 20, "guests", 4)).send().join();
    }
    await("all three instances ended in the store").atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(document(ReadModelIndex.PROCESS_INSTANCE, mainKey)).containsEntry("state", "COMPLETED");
      assertThat(document(ReadModelIndex.PROCESS_INSTANCE, fragileKey)).containsEntry("state", "COMPLETED");
      assertThat(document(ReadModelIndex.PROCESS_INSTANCE, waitingKey)).containsEntry("state", "CANCELED");
      assertThat(document(ReadModelIndex.PROCESS_INSTANCE, decidedKey)).containsEntry("state", "COMPLETED");
      assertThat(document(ReadModelIndex.PROCESS_INSTANCE, undecidedKey)).containsEntry("state", "CANCELED");
      assertThat(documentsOf(ReadModelIndex.DECISION_INSTANCE, "evaluationKey", standalone.getDecisionInstanceKey()))
          .hasSize(2);
    });
  }

  @AfterAll
  void stopNode() {
    node.close();
  }

  /** Activates one job of {@code type} (waiting up to 30 s for one), as worker "tester". */
  static ActivatedJob activate(ZeebeClient client, String type) {
    List<ActivatedJob> jobs = new ArrayList<>();
    await("a " + type + " job").atMost(Duration.ofSeconds(30)).until(() -> {
      jobs.addAll(client.newActivateJobsCommand().jobType(type).maxJobsToActivate(1).workerName("tester")
          .send().join().getJobs());
      return !jobs.isEmpty();
    });
    return jobs.getFirst();
  }

  private static void complete(ZeebeClient client, String type, Map<String, Object> variables) {
    client.newCompleteCommand(activate(client, type).getKey()).variables(variables).send().join();
  }

  private Map<String, Object> document(ReadModelIndex index, long key) {
    return store.get(index.indexName(PREFIX), String.valueOf(key)).orElse(Map.of());
  }

  private List<Map<String, Object>> documentsOf(ReadModelIndex index, String field, Object value) {
    String name = index.indexName(PREFIX);
    store.refresh(name);
    return store.findByField(name, field, value, 100);
  }

  private Map<String, Object> awaitIncident(long instanceKey) {
    List<Map<String, Object>> found = new ArrayList<>();
    await("incident in the store").atMost(Duration.ofSeconds(30)).until(() -> {
      found.clear();
      found.addAll(documentsOf(ReadModelIndex.INCIDENT, "processInstanceKey", instanceKey));
      return !found.isEmpty();
    });
    return found.getFirst();
  }

  @Test
  @Order(1)
  void definitionsCarryTheirXmlAndName() {
    var definitions = documentsOf(ReadModelIndex.PROCESS_DEFINITION, "bpmnProcessId", "main");
    assertThat(definitions).singleElement().satisfies(d -> {
      assertThat(d).containsEntry("name", "Main").containsEntry("version", 1).containsEntry("resourceName", "main.bpmn");
      assertThat((String) d.get("bpmnXml")).contains("callActivity").contains("subProcess");
    });
  }

  @Test
  @Order(2)
  void everyElementKindOfTheRunIsAnElementInstanceWithItsFinalState() {
    var elements = documentsOf(ReadModelIndex.FLOW_NODE_INSTANCE, "processInstanceKey", mainKey);
    Map<String, String> stateById = new HashMap<>();
    Map<String, String> typeById = new HashMap<>();
    elements.forEach(e -> {
      stateById.put((String) e.get("elementId"), (String) e.get("state"));
      typeById.put((String) e.get("elementId"), (String) e.get("type"));
    });
    assertThat(typeById).containsEntry("start", "START_EVENT").containsEntry("prepare", "SERVICE_TASK")
        .containsEntry("route", "EXCLUSIVE_GATEWAY").containsEntry("fork", "PARALLEL_GATEWAY")
        .containsEntry("sub", "SUB_PROCESS").containsEntry("inner", "SERVICE_TASK")
        .containsEntry("call", "CALL_ACTIVITY").containsEntry("wait", "INTERMEDIATE_CATCH_EVENT")
        .containsEntry("msg", "INTERMEDIATE_CATCH_EVENT").containsEntry("end", "END_EVENT");
    assertThat(typeById).doesNotContainKey("skipped");
    assertThat(stateById.values()).containsOnly("COMPLETED");
    // names as the BPMN above gives them; an element it gives no name is named by its id
    elements.forEach(e -> assertThat(e.get("elementName")).as((String) e.get("elementId"))
        .isEqualTo("prepare".equals(e.get("elementId")) ? "Prepare the order" : e.get("elementId")));
    // each element instance names the one it runs in (v2's elementInstanceScopeKey): the sub-process, the process
    Map<String, Object> keyById = new HashMap<>();
    Map<String, Object> scopeById = new HashMap<>();
    elements.forEach(e -> {
      keyById.put((String) e.get("elementId"), e.get("key"));
      scopeById.put((String) e.get("elementId"), e.get("flowScopeKey"));
    });
    assertThat(scopeById.get("inner")).isEqualTo(keyById.get("sub"));
    assertThat(scopeById.get("start")).isEqualTo(mainKey);
    assertThat(elements).filteredOn(e -> "PROCESS".equals(e.get("type")))
        .allSatisfy(e -> assertThat(e).doesNotContainKey("flowScopeKey"));

    var cancelled = documentsOf(ReadModelIndex.FLOW_NODE_INSTANCE, "processInstanceKey", waitingKey);
    assertThat(cancelled).filteredOn(e -> "never".equals(e.get("elementId")))
        .singleElement().satisfies(e -> assertThat(e).containsEntry("state", "TERMINATED"));
  }

  @Test
  @Order(3)
  void aCalledInstanceKnowsItsParent() {
    var children = documentsOf(ReadModelIndex.PROCESS_INSTANCE, "bpmnProcessId", "child");
    assertThat(children).singleElement().satisfies(child -> {
      assertThat(((Number) child.get("parentProcessInstanceKey")).longValue()).isEqualTo(mainKey);
      assertThat(child).containsEntry("state", "COMPLETED");
      // the root of the call hierarchy is the caller, on the child and on everything inside it
      assertThat(((Number) child.get("rootProcessInstanceKey")).longValue()).isEqualTo(mainKey);
      long childKey = ((Number) child.get("key")).longValue();
      assertThat(documentsOf(ReadModelIndex.FLOW_NODE_INSTANCE, "processInstanceKey", childKey)).isNotEmpty()
          .allSatisfy(e -> assertThat(((Number) e.get("rootProcessInstanceKey")).longValue()).isEqualTo(mainKey));
    });
    assertThat(documentsOf(ReadModelIndex.PROCESS_INSTANCE, "key", mainKey)).singleElement().satisfies(main -> {
      assertThat(((Number) main.get("rootProcessInstanceKey")).longValue()).isEqualTo(mainKey);
      assertThat(main).containsEntry("processDefinitionName", "Main");
    });
  }

  @Test
  @Order(4)
  void variablesAreCreatedUpdatedAndTruncatedAboveTheLimit() {
    Map<String, Map<String, Object>> byName = new HashMap<>();
    documentsOf(ReadModelIndex.VARIABLE, "processInstanceKey", mainKey)
        .forEach(v -> byName.put((String) v.get("name"), v));
    assertThat(byName.get("note")).containsEntry("value", "\"second\"").containsEntry("truncated", false);
    assertThat(byName.get("x")).containsEntry("value", "10");
    assertThat(byName.get("big")).containsEntry("truncated", true);
    assertThat((String) byName.get("big").get("value")).hasSize(100);
    assertThat((String) byName.get("big").get("fullValue")).hasSize(302);
  }

  /**
   * The filter terms on the instance (ADR 15), against what the client sent: each variable's last value (a long one
   * shortened with its hash); the elements as they ended; no open incident.
   */
  @Test
  @Order(4)
  void theInstanceHoldsTheFilterTermsOfItsVariablesAndElementsAsTheyEnded() {
    Map<String, Object> main = document(ReadModelIndex.PROCESS_INSTANCE, mainKey);
    assertThat(main.get("variableEntries")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
        .contains("orderId=\"o-1\"", "note=\"second\"", "x=10")
        .doesNotContain("note=\"first\"")
        .anySatisfy(entry -> assertThat((String) entry).startsWith("big=\"yyy").hasSize(190 + 1 + 64));
    assertThat(main.get("elementInstanceEntries")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
        .contains("id=prepare|state=COMPLETED|inc=false", "id=inner|state=COMPLETED", "id=msg|state=COMPLETED",
            "id=end|state=COMPLETED")
        .doesNotContain("state=ACTIVE", "inc=true", "id=skipped");
    assertThat(main.get("incidentErrorMessages")).isIn(null, List.of());

    Map<String, Object> fragile = document(ReadModelIndex.PROCESS_INSTANCE, fragileKey);
    assertThat(fragile.get("incidentErrorMessages")).as("the incident was resolved").isIn(null, List.of());
    assertThat(fragile.get("elementInstanceEntries")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
        .contains("id=fail|state=COMPLETED|inc=false").doesNotContain("inc=true");
    assertThat(document(ReadModelIndex.PROCESS_INSTANCE, waitingKey).get("elementInstanceEntries"))
        .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST).contains("id=never|state=TERMINATED");
  }

  @Test
  @Order(5)
  void anIncidentIsResolvedOnItsDocumentItsInstanceAndItsElement() {
    var incident = documentsOf(ReadModelIndex.INCIDENT, "processInstanceKey", fragileKey);
    assertThat(incident).singleElement().satisfies(i -> assertThat(i)
        .containsEntry("state", "RESOLVED").containsEntry("errorType", "JOB_NO_RETRIES")
        .containsEntry("errorMessage", "boom").containsEntry("elementId", "fail")
        .containsEntry("rootProcessInstanceKey", fragileKey));
    assertThat(document(ReadModelIndex.PROCESS_INSTANCE, fragileKey)).containsEntry("incident", false);
    var element = documentsOf(ReadModelIndex.FLOW_NODE_INSTANCE, "processInstanceKey", fragileKey).stream()
        .filter(e -> "fail".equals(e.get("elementId"))).findFirst().orElseThrow();
    assertThat(element.get("incidentKey")).isNull();
  }

  @Test
  @Order(6)
  void jobsFollowTheirLifeCycle() {
    var fragileJobs = documentsOf(ReadModelIndex.JOB, "processInstanceKey", fragileKey);
    assertThat(fragileJobs).singleElement().satisfies(j -> assertThat(j)
        .containsEntry("state", "COMPLETED").containsEntry("worker", "tester").containsEntry("errorMessage", "boom")
        .containsEntry("type", "fragile").containsEntry("jobKind", "BPMN_ELEMENT")
        .containsEntry("listenerEventType", "UNSPECIFIED").containsEntry("hasFailedWithRetriesLeft", false)
        .containsKeys("creationTime", "lastUpdateTime", "endTime")
        .containsEntry("rootProcessInstanceKey", fragileKey).containsEntry("stateOrder", 1));
    var cancelledJobs = documentsOf(ReadModelIndex.JOB, "processInstanceKey", waitingKey);
    assertThat(cancelledJobs).singleElement().satisfies(j -> assertThat(j).containsEntry("state", "CANCELED")
        .containsEntry("stateOrder", 0));
  }

  @Test
  @Order(6)
  void theSequenceFlowsAreTheFlowsOfTheTakenPathOncePerInstanceAndFlow() {
    // from the model: every flow of the main process but the gateway's default flow to "skipped" (x was 10)
    List<String> expected = MAIN.getModelElementsByType(io.camunda.zeebe.model.bpmn.instance.SequenceFlow.class).stream()
        .filter(flow -> !flow.getTarget().getId().equals("skipped"))
        .map(io.camunda.zeebe.model.bpmn.instance.SequenceFlow::getId).toList();

    var flows = documentsOf(ReadModelIndex.SEQUENCE_FLOW, "processInstanceKey", mainKey);

    assertThat(flows).extracting(f -> (String) f.get("elementId")).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(flows).allSatisfy(f -> assertThat(f)
        .containsEntry("sequenceFlowId", mainKey + "_" + f.get("elementId"))
        .containsEntry("bpmnProcessId", "main").containsEntry("rootProcessInstanceKey", mainKey));
  }

  @Test
  @Order(6)
  void theMessageSubscriptionIsCorrelatedWithThePublishedMessage() {
    var subscriptions = documentsOf(ReadModelIndex.MESSAGE_SUBSCRIPTION, "processInstanceKey", mainKey);
    assertThat(subscriptions).singleElement().satisfies(s -> assertThat(s)
        .containsEntry("elementId", "msg").containsEntry("messageName", "go").containsEntry("correlationKey", "o-1")
        .containsEntry("state", "CORRELATED").containsEntry("bpmnProcessId", "main"));
    long subscriptionKey = ((Number) subscriptions.getFirst().get("key")).longValue();

    var correlations = documentsOf(ReadModelIndex.MESSAGE_CORRELATION, "processInstanceKey", mainKey);
    assertThat(correlations).singleElement().satisfies(c -> {
      assertThat(((Number) c.get("messageKey")).longValue()).isEqualTo(goMessageKey);
      assertThat(((Number) c.get("subscriptionKey")).longValue()).isEqualTo(subscriptionKey);
      assertThat(c).containsEntry("messageName", "go").containsEntry("correlationKey", "o-1")
          .containsEntry("elementId", "msg");
      // not in Zeebe 8.6's records: the definition the instance ran at the correlation, filled in by the writer
      assertThat(((Number) c.get("processDefinitionKey")).longValue()).isEqualTo(mainDefinitionKey);
    });
  }

  @Nested
  @Order(6)
  class Decisions {

    @Test
    void theDeployedDecisionsAndTheirDrdAreDocumentsWithTheEnginesKeys() {
      var deployed = dmnDeployment.getDecisionRequirements().getFirst();
      var requirements = document(ReadModelIndex.DECISION_REQUIREMENTS, deployed.getDecisionRequirementsKey());
      assertThat(requirements).containsEntry("decisionRequirementsId", "dish-drd")
          .containsEntry("name", "Dish for the season").containsEntry("version", 1)
          .containsEntry("resourceName", "flowpipe/dmn/dish.dmn");
      assertThat((String) requirements.get("dmnXml")).contains("<decisionTable id=\"dish-table\" hitPolicy=\"UNIQUE\">");

      assertThat(dmnDeployment.getDecisions()).hasSize(2).allSatisfy(decision ->
          assertThat(document(ReadModelIndex.DECISION_DEFINITION, decision.getDecisionKey()))
              .containsEntry("decisionId", decision.getDmnDecisionId())
              .containsEntry("name", decision.getDmnDecisionName())
              .containsEntry("version", decision.getVersion())
              .containsEntry("decisionRequirementsId", "dish-drd")
              .containsEntry("decisionRequirementsKey", deployed.getDecisionRequirementsKey())
              // the DRD's, copied by the writer for sorting
              .containsEntry("decisionRequirementsName", "Dish for the season")
              .containsEntry("decisionRequirementsVersion", 1));
    }

    @Test
    void aBusinessRuleTasksEvaluationIsOneInstancePerDecisionWithInputsMatchedRuleAndOutput() {
      var instances = byId(documentsOf(ReadModelIndex.DECISION_INSTANCE, "processInstanceKey", decidedKey));
      long evaluationKey = ((Number) instances.values().iterator().next().get("evaluationKey")).longValue();
      long element = ((Number) documentsOf(ReadModelIndex.FLOW_NODE_INSTANCE, "processInstanceKey", decidedKey).stream()
          .filter(e -> "choose".equals(e.get("elementId"))).findFirst().orElseThrow().get("key")).longValue();

      assertThat(instances).containsOnlyKeys(evaluationKey + "-1", evaluationKey + "-2");
      assertThat(instances.get(evaluationKey + "-1")).containsEntry("decisionId", "season")
          .containsEntry("rootDecisionKey", instances.get(evaluationKey + "-2").get("decisionKey"))
          .containsEntry("decisionType", "LITERAL_EXPRESSION").containsEntry("state", "EVALUATED")
          .containsEntry("result", "\"Winter\"");
      assertThat(instances.get(evaluationKey + "-2")).containsEntry("decisionId", "dish")
          .containsEntry("decisionName", "Dish").containsEntry("decisionType", "DECISION_TABLE")
          .containsEntry("state", "EVALUATED").containsEntry("result", "\"Roastbeef\"")
          .containsEntry("bpmnProcessId", "decide").containsEntry("elementId", "choose")
          .containsEntry("elementInstanceKey", element).containsEntry("rootProcessInstanceKey", decidedKey)
          .containsEntry("rootDecisionKey", instances.get(evaluationKey + "-2").get("decisionKey"))
          .containsEntry("evaluatedInputs", List.of(
              Map.of("inputId", "input-season", "inputName", "Season", "inputValue", "\"Winter\""),
              Map.of("inputId", "input-guests", "inputName", "Guests", "inputValue", "4")))
          .containsEntry("matchedRules", List.of(Map.of("ruleId", "rule-winter", "ruleIndex", 1,
              "evaluatedOutputs", List.of(Map.of("outputId", "output-dish", "outputName", "Dish",
                  "outputValue", "\"Roastbeef\"")))));
    }

    @Test
    void aFailedEvaluationIsFailedAtTheDecisionTheEngineNamedWithItsIncidentsMessage() {
      var instances = byId(documentsOf(ReadModelIndex.DECISION_INSTANCE, "processInstanceKey", undecidedKey));
      String incidentMessage = (String) documentsOf(ReadModelIndex.INCIDENT, "processInstanceKey", undecidedKey)
          .getFirst().get("errorMessage");

      assertThat(instances.values()).filteredOn(i -> "FAILED".equals(i.get("state"))).singleElement()
          .satisfies(failed -> {
            assertThat(failed).containsEntry("decisionId", "dish");
            assertThat(incidentMessage).contains((String) failed.get("evaluationFailure"));
          });
      assertThat(instances.values()).filteredOn(i -> "season".equals(i.get("decisionId"))).singleElement()
          .satisfies(season -> assertThat(season).containsEntry("state", "EVALUATED"));
    }

    @Test
    void aStandaloneEvaluationHasTheEnginesAnswerAndNoInstance() {
      var instances = byId(documentsOf(ReadModelIndex.DECISION_INSTANCE, "evaluationKey",
          standalone.getDecisionInstanceKey()));

      assertThat(instances).hasSize(standalone.getEvaluatedDecisions().size());
      for (int n = 1; n <= standalone.getEvaluatedDecisions().size(); n++) {
        var answered = standalone.getEvaluatedDecisions().get(n - 1);
        var document = instances.get(standalone.getDecisionInstanceKey() + "-" + n);
        assertThat(document).as("decision %d", n).containsEntry("decisionId", answered.getDecisionId())
            .containsEntry("decisionKey", answered.getDecisionKey())
            .containsEntry("result", answered.getDecisionOutput());
        assertThat(document.get("bpmnProcessId")).as("no process").isNull();
        assertThat(((Number) document.get("processInstanceKey")).longValue()).as("no instance").isEqualTo(-1);
        assertThat(document).as("no root instance").doesNotContainKey("rootProcessInstanceKey");
        assertThat(((List<?>) document.get("evaluatedInputs")).stream().map(i -> ((Map<?, ?>) i).get("inputValue"))
            .toList()).isEqualTo(answered.getEvaluatedInputs().stream().map(i -> i.getInputValue()).toList());
        assertThat(((List<?>) document.get("matchedRules")).stream().map(r -> ((Map<?, ?>) r).get("ruleId"))
            .toList()).isEqualTo(answered.getMatchedRules().stream().map(r -> r.getRuleId()).toList());
      }
    }

    private static Map<String, Map<String, Object>> byId(List<Map<String, Object>> documents) {
      Map<String, Map<String, Object>> byId = new java.util.TreeMap<>();
      documents.forEach(d -> byId.put((String) d.get("decisionInstanceId"), d));
      return byId;
    }
  }

  @ParameterizedTest(name = "random seed {0}, {1} bulks in flight")
  @CsvSource({"42, 1", "7, 1", "2026, 1", "5, 2", "1234, 2"})
  @Order(7)
  void replaysFromRandomEarlierPositionsWithPartlyAppliedBulksLeaveTheDocumentsOfOneCleanPass(
      long seed, int bulksInFlight) throws Exception {
    String url = node.store().connection().url().toString();
    String clean = cleanPass(url);
    String replayed = replayPass(url, seed, bulksInFlight);

    for (ReadModelIndex index : readModel()) {
      var expected = documents(store, index.indexName(clean));
      assertThat(expected).as(index + " written by the clean pass").isNotEmpty();
      assertThat(documents(store, index.indexName(replayed))).as(index.name()).isEqualTo(expected);
    }
  }

  @Test
  @Order(8)
  void onElasticsearchTheSameStreamAndItsReplaysGiveTheSameDocumentsAsOnOpenSearch(@TempDir Path esData)
      throws Exception {
    String openSearchClean = cleanPass(node.store().connection().url().toString());
    try (EmbeddedSearchStore elasticsearch =
            EmbeddedSearchStore.start(esData, EmbeddedSearchStore.Settings.forTests(EmbeddedSearchStore.Engine.ELASTICSEARCH)
                // C1 only, as the node's own store (NodeProcess.TEST_JIT)
                .withJvmOptions(NodeProcess.testJitOptions()));
        SearchStore es = SearchStoreConnector.connect(StoreConnection.of(elasticsearch.url()))) {
      assertThat(es.product()).isEqualTo(StoreProduct.ELASTICSEARCH);
      String clean = cleanPass(elasticsearch.url());
      String replayed = replayPass(elasticsearch.url(), 99, 2);

      for (ReadModelIndex index : readModel()) {
        var expected = documents(store, index.indexName(openSearchClean));
        assertThat(documents(es, index.indexName(clean))).as("clean pass, " + index).isEqualTo(expected);
        assertThat(documents(es, index.indexName(replayed))).as("replayed, " + index).isEqualTo(expected);
      }
    }
  }

  private static List<ReadModelIndex> readModel() {
    return ReadModelIndex.fromRecords();
  }

  /** Every document of the index, ordered by key, after a refresh. */
  static List<Map<String, Object>> documents(SearchStore target, String index) {
    target.refresh(index);
    return target.all(index, 10_000);
  }

  private static List<Record<?>> recordedStream() {
    List<Record<?>> stream = RecordingExporter.records().stream().filter(r -> r.getPartitionId() == 1).toList();
    assertThat(stream).hasSizeGreaterThan(100);
    return stream;
  }

  /** The recorded stream exported once, in order; returns the index prefix. */
  private static String cleanPass(String url) {
    String clean = "clean" + suffix();
    Feeder cleanPass = new Feeder(url, clean, 50, 1, null);
    recordedStream().forEach(cleanPass::export);
    cleanPass.close();
    return clean;
  }

  /**
   * The recorded stream exported with crashes: six rounds, each feeding a random stretch with a random bulk size; in
   * every third round a proxy applies only half of each bulk and then fails it, and in another it fails three bulks in
   * ten at random (so with several bulks in flight, a later one can succeed where an earlier one failed). In the
   * fourth round the proxy holds a bulk from the middle of the stretch while the later ones go, and fails it at the
   * moment of the crash. Each round ends in a crash: the proxy refuses every
   * bulk from then on and the exporter is dropped unflushed. The next round starts right after the last acknowledged
   * position, or at a random earlier one. Then the rest, to the end. Returns the index prefix.
   */
  private static String replayPass(String url, long seed, int bulksInFlight) throws Exception {
    List<Record<?>> stream = recordedStream();
    String replayed = "replay" + suffix();
    Random random = new Random(seed);
    long ackedPosition = -1;
    // what the broker keeps of the exporter across its crashes: the acknowledged position and the log's id
    ExporterTestController brokerState = null;
    int from = 0;
    try (StoreProxy flaky = new StoreProxy(url, null, null)) {
      for (int round = 0; round < 6; round++) {
        boolean halfBulks = round % 3 == 1;
        flaky.applyHalfOfEachBulk(halfBulks);
        flaky.failBulksAtRandom(round % 3 == 2 ? new Random(random.nextLong()) : null, 0.3);
        // small bulks in the fourth round, so that several go behind the held one
        Feeder feeder = new Feeder(flaky.url(), replayed, 1 + random.nextInt(round == 3 ? 3 : 40), bulksInFlight,
            brokerState);
        int to = Math.min(stream.size(), from + 1 + random.nextInt(stream.size() / 3));
        if (round == 3) {
          crashWhileABulkIsHeld(flaky, feeder, stream.subList(from, to));
        } else {
          for (Record<?> record : stream.subList(from, to)) {
            if (halfBulks) {
              feeder.exportIgnoringBackpressure(record); // nothing gets through: the broker would stall here
            } else {
              feeder.export(record); // a refused record is offered again, as the broker does
            }
          }
          if (random.nextBoolean()) {
            feeder.tick();
          }
          // the crash: from now on no bulk of this exporter reaches the store, and what it acknowledged is all it has
          flaky.failBulksAtRandom(new Random(0), 1.0);
        }
        ackedPosition = Math.max(ackedPosition, feeder.controller.getPosition());
        brokerState = feeder.controller;
        int resume = firstIndexAfter(stream, ackedPosition);
        // the broker resumes right after the acknowledged position; an earlier start must change nothing either
        from = random.nextBoolean() ? resume : random.nextInt(resume + 1);
      }
      flaky.applyHalfOfEachBulk(false).failBulksAtRandom(null, 0);
      Feeder last = new Feeder(flaky.url(), replayed, 25, bulksInFlight, brokerState);
      stream.subList(from, stream.size()).forEach(last::export);
      last.close();
    }
    return replayed;
  }

  /**
   * Feeds the first half of the stretch, then holds the next bulk while a thread, as the broker's actor, offers the
   * rest: with two bulks in flight, later bulks are written meanwhile where their documents do not wait for the held
   * one, until the exporter blocks the thread with its buffer full or the stretch is in. Then the crash, with the
   * thread perhaps still blocked, and the held bulk fails as the node goes down: nothing written after it may count
   * as acknowledged. (If no bulk went after the hold, nothing is held, and this is a plain crash.)
   */
  private static void crashWhileABulkIsHeld(StoreProxy flaky, Feeder feeder, List<Record<?>> stretch)
      throws InterruptedException {
    int half = stretch.size() / 2;
    stretch.subList(0, half).forEach(feeder::export);
    StoreProxy.HeldBulk held = flaky.holdNextBulk();
    Thread broker = new Thread(() -> {
      for (Record<?> record : stretch.subList(half, stretch.size())) {
        if (!feeder.offer(record)) {
          return; // full behind the held bulk: the broker would offer this record again until the crash
        }
      }
    }, "broker-actor");
    broker.start();
    broker.join(2_000);
    flaky.failBulksAtRandom(new Random(0), 1.0);
    if (!flaky.cancelHold()) {
      assertThat(held.awaitArrival()).as("the held bulk reached the proxy").isTrue();
      held.fail();
    }
    broker.join(30_000);
    assertThat(broker.isAlive()).as("the exporter let the broker's thread go once the held bulk failed").isFalse();
  }

  private static int firstIndexAfter(List<Record<?>> stream, long position) {
    for (int i = 0; i < stream.size(); i++) {
      if (stream.get(i).getPosition() > position) {
        return i;
      }
    }
    return stream.size();
  }

  private static String suffix() {
    return "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Our exporter outside the broker, fed by hand, as the broker would. */
  private static final class Feeder {
    private final ExporterTestController controller = new ExporterTestController();
    private final ReadModelExporter exporter = new ReadModelExporter();

    /** {@code brokerState}: the controller of the exporter before a crash, whose position and metadata carry on. */
    Feeder(String url, String prefix, int bulkSize, int bulksInFlight, ExporterTestController brokerState) {
      if (brokerState != null) {
        brokerState.readMetadata().ifPresent(
            metadata -> controller.updateLastExportedRecordPosition(brokerState.getPosition(), metadata));
      }
      Map<String, Object> args = new HashMap<>();
      args.put(WriterSettings.BULKS_IN_FLIGHT, bulksInFlight);
      args.put(WriterSettings.URL, url);
      args.put(WriterSettings.INDEX_PREFIX, prefix);
      args.put(WriterSettings.BULK_SIZE, bulkSize);
      args.put(WriterSettings.BULK_DELAY, "1h");
      args.put(WriterSettings.RETRY_BACKOFF, "1ms");
      args.put(WriterSettings.MAX_RETRY_BACKOFF, "2ms");
      args.put(WriterSettings.VARIABLE_VALUE_LIMIT, 100);
      exporter.configure(new ExporterTestContext()
          .setConfiguration(new ExporterTestConfiguration<>("flowpipe", args, a -> a)));
      exporter.open(controller);
    }

    void export(Record<?> record) {
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).ignoreExceptions().until(() -> {
        exporter.export(record);
        return true;
      });
    }

    /** Like the broker during an outage: a refused record is simply not retried by this feeder. */
    void exportIgnoringBackpressure(Record<?> record) {
      offer(record); // refused while the buffer is full and bulks fail
    }

    /** Offers the record once; false when the exporter refused it (its buffer is full). */
    boolean offer(Record<?> record) {
      try {
        exporter.export(record);
        return true;
      } catch (RuntimeException refused) {
        return false;
      }
    }

    void tick() {
      controller.runScheduledTasks(Duration.ofHours(2));
    }

    void close() {
      exporter.close();
    }
  }
}
