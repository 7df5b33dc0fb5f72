package dev.flowpipe.clientcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.camunda.client.CamundaClient;
import io.camunda.client.api.response.Decision;
import io.camunda.client.api.response.DeploymentEvent;
import io.camunda.client.api.response.EvaluateDecisionResponse;
import io.camunda.client.api.response.EvaluatedDecision;
import io.camunda.client.api.search.response.DecisionDefinitionType;
import io.camunda.client.api.search.response.DecisionInstanceState;
import io.camunda.client.api.search.filter.DecisionDefinitionFilter;
import io.camunda.client.api.search.filter.DecisionInstanceFilter;
import io.camunda.client.api.search.filter.DecisionRequirementsFilter;
import io.camunda.client.api.search.response.DecisionInstance;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Decisions through Camunda's official Java client (camunda-client-java 8.8, unchanged, REST preferred) against a
 * real node: every search and get the client offers for decision definitions, decision requirements and decision
 * instances, with a filter on each field. Expected values come from the engine's answers (the deployment, the
 * {@code EvaluateDecision} command) and from test-support's {@code flowpipe/dmn/dish.dmn}, never from the read model.
 *
 * <p>The runs: one {@code decide} instance whose business rule task evaluates "dish" (which requires "season"):
 * temperature 5 and 4 guests give "Winter" and rule 1, "Roastbeef"; and one standalone evaluation of "dish" (over
 * gRPC: the node's web app serves no evaluation) with temperature 20: "Summer" and rule 2, "Salad". The node is shared
 * with this module's other classes, which deploy and evaluate no decisions: the decision searches see these runs only.
 */
@ExtendWith(SharedNode.class)
class CamundaClientDecisionsOnNodeTest {

  private static final String USER = SharedNode.READER_WRITER;
  private static final String PASSWORD = SharedNode.READER_WRITER_PASSWORD;
  private static final String TENANT = "<default>";

  private static final BpmnModelInstance DECIDE =
      Bpmn.createExecutableProcess("decide").startEvent()
          .businessRuleTask("choose", t -> t.zeebeCalledDecisionId("dish").zeebeResultVariable("meal")).endEvent()
          .done();

  private static NodeInChildProcess node;
  private static CamundaClient client;
  private static DeploymentEvent deployment;
  private static long decided;
  private static EvaluateDecisionResponse standalone;

  @BeforeAll
  static void runDecisionsOnANode(NodeInChildProcess shared) {
    node = shared;
    client = node.client(USER, PASSWORD, true);
    deployment = client.newDeployResourceCommand().useGrpc().addResourceFromClasspath("flowpipe/dmn/dish.dmn")
        .addProcessModel(DECIDE, "decide.bpmn").send().join();
    decided = client.newCreateInstanceCommand().bpmnProcessId("decide").latestVersion()
        .variables(Map.of("temperature", 5, "guests", 4)).send().join().getProcessInstanceKey();
    try (CamundaClient overGrpc = node.client(USER, PASSWORD, false)) {
      standalone = overGrpc.newEvaluateDecisionCommand().decisionId("dish")
          .variables(Map.of("temperature", 20, "guests", 4)).send().join();
    }
    await("both evaluations in the read model").atMost(Duration.ofSeconds(60)).until(() ->
        client.newDecisionInstanceSearchRequest().send().join().items().size() == 4);
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  private static Decision deployed(String decisionId) {
    return deployment.getDecisions().stream().filter(d -> d.getDmnDecisionId().equals(decisionId)).findFirst()
        .orElseThrow();
  }

  private static <F, T> Stream<DynamicTest> run(Map<String, Consumer<F>> cases, Map<String, List<T>> expected,
      java.util.function.Function<Consumer<F>, List<T>> search) {
    return cases.entrySet().stream().map(c -> DynamicTest.dynamicTest(c.getKey(), () ->
        assertThat(search.apply(c.getValue())).as(c.getKey())
            .containsExactlyInAnyOrderElementsOf(expected.get(c.getKey()))));
  }

  @Nested
  class DecisionDefinitions {

    @TestFactory
    Stream<DynamicTest> aFilterOnEachFieldFindsTheDeployedDecisions() {
      Decision dish = deployed("dish");
      Decision season = deployed("season");
      long drd = deployment.getDecisionRequirements().getFirst().getDecisionRequirementsKey();
      Map<String, Consumer<DecisionDefinitionFilter>> cases = new LinkedHashMap<>();
      Map<String, List<Long>> expected = new java.util.HashMap<>();
      cases.put("decisionDefinitionKey", f -> f.decisionDefinitionKey(dish.getDecisionKey()));
      expected.put("decisionDefinitionKey", List.of(dish.getDecisionKey()));
      cases.put("decisionDefinitionId", f -> f.decisionDefinitionId("season"));
      expected.put("decisionDefinitionId", List.of(season.getDecisionKey()));
      cases.put("name", f -> f.name("Dish"));
      expected.put("name", List.of(dish.getDecisionKey()));
      cases.put("version", f -> f.version(1));
      expected.put("version", List.of(dish.getDecisionKey(), season.getDecisionKey()));
      cases.put("decisionRequirementsId", f -> f.decisionRequirementsId("dish-drd"));
      expected.put("decisionRequirementsId", List.of(dish.getDecisionKey(), season.getDecisionKey()));
      cases.put("decisionRequirementsKey", f -> f.decisionRequirementsKey(drd));
      expected.put("decisionRequirementsKey", List.of(dish.getDecisionKey(), season.getDecisionKey()));
      cases.put("tenantId", f -> f.tenantId(TENANT));
      expected.put("tenantId", List.of(dish.getDecisionKey(), season.getDecisionKey()));
      cases.put("a filter that matches nothing", f -> f.decisionDefinitionId("nothing"));
      expected.put("a filter that matches nothing", List.of());
      return run(cases, expected, filter -> client.newDecisionDefinitionSearchRequest().filter(filter).page(p -> p.limit(10_000)).send().join()
          .items().stream().map(d -> d.getDecisionKey()).toList());
    }

    @Test
    void aGetAnswersWhatTheDeploymentAnswered() {
      Decision dish = deployed("dish");

      var got = client.newDecisionDefinitionGetRequest(dish.getDecisionKey()).send().join();

      assertThat(got.getDmnDecisionId()).isEqualTo("dish");
      assertThat(got.getDmnDecisionName()).isEqualTo(dish.getDmnDecisionName());
      assertThat(got.getVersion()).isEqualTo(dish.getVersion());
      assertThat(got.getDmnDecisionRequirementsId()).isEqualTo(dish.getDmnDecisionRequirementsId());
      assertThat(got.getDecisionRequirementsKey()).isEqualTo(dish.getDecisionRequirementsKey());
      assertThat(got.getTenantId()).isEqualTo(TENANT);
    }

    @Test
    void theXmlIsTheDeployedDmn() throws Exception {
      String deployedDmn;
      try (var in = getClass().getResourceAsStream("/flowpipe/dmn/dish.dmn")) {
        deployedDmn = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      }

      assertThat(client.newDecisionDefinitionGetXmlRequest(deployed("dish").getDecisionKey()).send().join())
          .isEqualTo(deployedDmn);
    }
  }

  @Nested
  class DecisionRequirements {

    @TestFactory
    Stream<DynamicTest> aFilterOnEachFieldFindsTheDeployedDrd() {
      var drd = deployment.getDecisionRequirements().getFirst();
      Map<String, Consumer<DecisionRequirementsFilter>> cases = new LinkedHashMap<>();
      cases.put("decisionRequirementsKey", f -> f.decisionRequirementsKey(drd.getDecisionRequirementsKey()));
      cases.put("decisionRequirementsId", f -> f.decisionRequirementsId("dish-drd"));
      cases.put("decisionRequirementsName", f -> f.decisionRequirementsName(drd.getDmnDecisionRequirementsName()));
      cases.put("version", f -> f.version(1));
      cases.put("resourceName", f -> f.resourceName(drd.getResourceName()));
      cases.put("tenantId", f -> f.tenantId(TENANT));
      Map<String, List<Long>> expected = new java.util.HashMap<>();
      cases.keySet().forEach(name -> expected.put(name, List.of(drd.getDecisionRequirementsKey())));
      cases.put("a filter that matches nothing", f -> f.decisionRequirementsId("nothing"));
      expected.put("a filter that matches nothing", List.of());
      return run(cases, expected, filter -> client.newDecisionRequirementsSearchRequest().filter(filter).page(p -> p.limit(10_000)).send()
          .join().items().stream().map(d -> d.getDecisionRequirementsKey()).toList());
    }

    @Test
    void aGetAndItsXmlAnswerWhatTheDeploymentAnswered() {
      var drd = deployment.getDecisionRequirements().getFirst();

      var got = client.newDecisionRequirementsGetRequest(drd.getDecisionRequirementsKey()).send().join();
      String xml = client.newDecisionRequirementsGetXmlRequest(drd.getDecisionRequirementsKey()).send().join();

      assertThat(got.getDmnDecisionRequirementsId()).isEqualTo(drd.getDmnDecisionRequirementsId());
      assertThat(got.getDmnDecisionRequirementsName()).isEqualTo(drd.getDmnDecisionRequirementsName());
      assertThat(got.getVersion()).isEqualTo(drd.getVersion());
      assertThat(got.getResourceName()).isEqualTo(drd.getResourceName());
      assertThat(xml).contains("<decisionTable id=\"dish-table\" hitPolicy=\"UNIQUE\">");
    }
  }

  @Nested
  class DecisionInstances {

    private List<String> search(Consumer<DecisionInstanceFilter> filter) {
      return client.newDecisionInstanceSearchRequest().filter(filter).page(p -> p.limit(10_000)).send().join().items().stream()
          .map(DecisionInstance::getDecisionInstanceId).toList();
    }

    private String evaluationOf(long processInstanceKey) {
      return String.valueOf(client.newDecisionInstanceSearchRequest()
          .filter(f -> f.processInstanceKey(processInstanceKey)).send().join().items().getFirst()
          .getDecisionInstanceKey());
    }

    @TestFactory
    Stream<DynamicTest> aFilterOnEachFieldFindsTheEvaluatedDecisions() {
      String task = evaluationOf(decided);
      String alone = String.valueOf(standalone.getDecisionInstanceKey());
      long element = client.newElementInstanceSearchRequest()
          .filter(f -> f.processInstanceKey(decided).elementId("choose")).send().join().singleItem()
          .getElementInstanceKey();
      long processDefinition = deployment.getProcesses().getFirst().getProcessDefinitionKey();
      Map<String, Consumer<DecisionInstanceFilter>> cases = new LinkedHashMap<>();
      Map<String, List<String>> expected = new java.util.HashMap<>();
      cases.put("processInstanceKey", f -> f.processInstanceKey(decided));
      expected.put("processInstanceKey", List.of(task + "-1", task + "-2"));
      cases.put("processDefinitionKey", f -> f.processDefinitionKey(processDefinition));
      expected.put("processDefinitionKey", List.of(task + "-1", task + "-2"));
      cases.put("elementInstanceKey", f -> f.elementInstanceKey(element));
      expected.put("elementInstanceKey", List.of(task + "-1", task + "-2"));
      cases.put("decisionInstanceKey", f -> f.decisionInstanceKey(standalone.getDecisionInstanceKey()));
      expected.put("decisionInstanceKey", List.of(alone + "-1", alone + "-2"));
      cases.put("decisionInstanceId", f -> f.decisionInstanceId(alone + "-2"));
      expected.put("decisionInstanceId", List.of(alone + "-2"));
      cases.put("decisionDefinitionKey", f -> f.decisionDefinitionKey(deployed("season").getDecisionKey()));
      expected.put("decisionDefinitionKey", List.of(task + "-1", alone + "-1"));
      cases.put("decisionDefinitionId", f -> f.decisionDefinitionId("dish"));
      expected.put("decisionDefinitionId", List.of(task + "-2", alone + "-2"));
      cases.put("decisionDefinitionName", f -> f.decisionDefinitionName("Season"));
      expected.put("decisionDefinitionName", List.of(task + "-1", alone + "-1"));
      cases.put("decisionDefinitionVersion", f -> f.decisionDefinitionVersion(1));
      expected.put("decisionDefinitionVersion", List.of(task + "-1", task + "-2", alone + "-1", alone + "-2"));
      cases.put("decisionDefinitionType", f -> f.decisionDefinitionType(DecisionDefinitionType.DECISION_TABLE));
      expected.put("decisionDefinitionType", List.of(task + "-2", alone + "-2"));
      cases.put("state", f -> f.state(DecisionInstanceState.EVALUATED));
      expected.put("state", List.of(task + "-1", task + "-2", alone + "-1", alone + "-2"));
      cases.put("tenantId", f -> f.tenantId(TENANT));
      expected.put("tenantId", List.of(task + "-1", task + "-2", alone + "-1", alone + "-2"));
      cases.put("state FAILED matches nothing", f -> f.state(DecisionInstanceState.FAILED));
      expected.put("state FAILED matches nothing", List.of());
      return run(cases, expected, this::search);
    }

    @Test
    void aGetAnswersTheInputsMatchedRulesAndOutputsTheEngineAnswered() {
      String alone = String.valueOf(standalone.getDecisionInstanceKey());
      for (int n = 1; n <= standalone.getEvaluatedDecisions().size(); n++) {
        EvaluatedDecision answered = standalone.getEvaluatedDecisions().get(n - 1);

        DecisionInstance got = client.newDecisionInstanceGetRequest(alone + "-" + n).send().join();

        assertThat(got.getDecisionInstanceId()).isEqualTo(alone + "-" + n);
        assertThat(got.getDecisionDefinitionId()).isEqualTo(answered.getDecisionId());
        assertThat(got.getDecisionDefinitionKey()).isEqualTo(answered.getDecisionKey());
        assertThat(got.getDecisionDefinitionName()).isEqualTo(answered.getDecisionName());
        assertThat(got.getDecisionDefinitionVersion()).isEqualTo(answered.getDecisionVersion());
        assertThat(got.getDecisionDefinitionType().name()).isEqualTo(answered.getDecisionType());
        assertThat(got.getResult()).isEqualTo(answered.getDecisionOutput());
        assertThat(got.getState()).isEqualTo(DecisionInstanceState.EVALUATED);
        assertThat(got.getEvaluatedInputs()).extracting(i -> i.getInputId() + "=" + i.getInputValue())
            .containsExactlyElementsOf(answered.getEvaluatedInputs().stream()
                .map(i -> i.getInputId() + "=" + i.getInputValue()).toList());
        assertThat(got.getMatchedRules()).extracting(r -> r.getRuleId() + "#" + r.getRuleIndex() + "->"
                + r.getEvaluatedOutputs().stream().map(o -> o.getOutputId() + "=" + o.getOutputValue()).toList())
            .containsExactlyElementsOf(answered.getMatchedRules().stream().map(r -> r.getRuleId() + "#"
                + r.getRuleIndex() + "->"
                + r.getEvaluatedOutputs().stream().map(o -> o.getOutputId() + "=" + o.getOutputValue()).toList())
                .toList());
      }
    }

    @Test
    void theBusinessRuleTasksDishIsRoastbeefByTheWinterRule() {
      String task = evaluationOf(decided);

      DecisionInstance dish = client.newDecisionInstanceGetRequest(task + "-2").send().join();

      assertThat(dish.getResult()).isEqualTo("\"Roastbeef\"");
      assertThat(dish.getMatchedRules()).singleElement().satisfies(rule -> {
        assertThat(rule.getRuleId()).isEqualTo("rule-winter");
        assertThat(rule.getRuleIndex()).isEqualTo(1);
      });
      assertThat(dish.getProcessInstanceKey()).isEqualTo(decided);
      assertThat(dish.getEvaluationDate()).isNotNull();
    }
  }
}
