package dev.flowpipe.clientcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camunda.client.CamundaClient;
import io.camunda.client.api.response.ActivatedJob;
import io.camunda.client.api.response.DeploymentEvent;
import io.camunda.client.api.search.enums.MessageSubscriptionState;
import io.camunda.client.api.search.filter.CorrelatedMessageSubscriptionFilter;
import io.camunda.client.api.search.filter.MessageSubscriptionFilter;
import io.camunda.client.api.search.response.CorrelatedMessageSubscription;
import io.camunda.client.api.search.response.MessageSubscription;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import io.camunda.zeebe.model.bpmn.instance.SequenceFlow;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
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
 * The read-model entities issue 34 added, through Camunda's official Java client (camunda-client-java 8.8, unchanged,
 * REST preferred) against a real node: an instance's sequence flows, message subscriptions and correlated message
 * subscriptions; and the 8.9 statistics Operate's UI uses (the 8.8 client has no calls for them: plain HTTP in the
 * v2 shapes). Expected values come from the models and the engine's answers (deployment, creation, publication),
 * not from the read model.
 *
 * <p>The runs: two {@code msg-payment} instances waiting at a message catch event, the first correlated with a
 * published message (then completed), the second still waiting; two {@code msg-fragile} instances whose jobs failed
 * without retries with the same message (two incidents of one error); one {@code msg-caller} instance whose call
 * activity started a {@code msg-called} instance, whose job failed without retries (an incident of another error). The
 * node is shared with this module's other classes: the searches and counts keep the entities of these runs only (their
 * process ids, keys and error message).
 */
@ExtendWith(SharedNode.class)
class CamundaClientMessagesFlowsAndStatisticsOnNodeTest {

  private static final String USER = SharedNode.READER_WRITER;
  private static final String PASSWORD = SharedNode.READER_WRITER_PASSWORD;
  private static final String TENANT = "<default>";
  /** Not the error of the shared node's other runs: the statistics by error are counted for this one. */
  private static final String ERROR = "payment declined";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final BpmnModelInstance PAYMENT =
      Bpmn.createExecutableProcess("msg-payment").name("Message payment").startEvent("opened")
          .intermediateCatchEvent("paid", e -> e.message(m -> m.name("msg-paid").zeebeCorrelationKeyExpression("orderId")))
          .endEvent("closed").done();

  private static final BpmnModelInstance FRAGILE =
      Bpmn.createExecutableProcess("msg-fragile").name("Message fragile").startEvent("begin")
          .serviceTask("charge", t -> t.zeebeJobType("msg-charge")).endEvent("charged").done();

  private static final BpmnModelInstance CALLER =
      Bpmn.createExecutableProcess("msg-caller").name("Message caller").startEvent("call")
          .callActivity("delegate", c -> c.zeebeProcessId("msg-called")).endEvent("called").done();

  /** No name: the call hierarchy names it by its id. */
  private static final BpmnModelInstance CALLED =
      Bpmn.createExecutableProcess("msg-called").startEvent("begin")
          .serviceTask("settle", t -> t.zeebeJobType("msg-settle")).endEvent("settled").done();

  private static NodeInChildProcess node;
  private static CamundaClient client;
  private static long paymentDefinition;
  private static long fragileDefinition;
  private static final List<Long> payments = new ArrayList<>();
  private static final List<Long> fragiles = new ArrayList<>();
  private static long paidMessage;
  private static long callerDefinition;
  private static long calledDefinition;
  private static long caller;
  private static ActivatedJob failedSettleJob;

  @BeforeAll
  static void runProcessesOnANode(NodeInChildProcess shared) {
    node = shared;
    client = node.client(USER, PASSWORD);

    DeploymentEvent deployment = client.newDeployResourceCommand().useGrpc()
        .addProcessModel(PAYMENT, "msg-payment.bpmn").addProcessModel(FRAGILE, "msg-fragile.bpmn")
        .addProcessModel(CALLER, "msg-caller.bpmn").addProcessModel(CALLED, "msg-called.bpmn").send().join();
    deployment.getProcesses().forEach(process -> {
      switch (process.getBpmnProcessId()) {
        case "msg-payment" -> paymentDefinition = process.getProcessDefinitionKey();
        case "msg-fragile" -> fragileDefinition = process.getProcessDefinitionKey();
        case "msg-caller" -> callerDefinition = process.getProcessDefinitionKey();
        default -> calledDefinition = process.getProcessDefinitionKey();
      }
    });
    for (String orderId : List.of("p-1", "p-2")) {
      payments.add(client.newCreateInstanceCommand().bpmnProcessId("msg-payment").latestVersion()
          .variables(Map.of("orderId", orderId)).send().join().getProcessInstanceKey());
    }
    // published once p-1's subscription is open: the engine correlates it then, not from its message buffer
    await("p-1's subscription open").atMost(Duration.ofSeconds(30)).until(() ->
        client.newMessageSubscriptionSearchRequest().filter(f -> f.correlationKey("p-1")).send().join().items().size()
            == 1);
    paidMessage = client.newPublishMessageCommand().messageName("msg-paid").correlationKey("p-1").send().join()
        .getMessageKey();

    for (int i = 0; i < 2; i++) {
      fragiles.add(client.newCreateInstanceCommand().bpmnProcessId("msg-fragile").latestVersion().send().join()
          .getProcessInstanceKey());
    }
    List<ActivatedJob> jobs = new ArrayList<>();
    await("two msg-charge jobs").atMost(Duration.ofSeconds(30)).until(() -> {
      jobs.addAll(client.newActivateJobsCommand().useGrpc().jobType("msg-charge").maxJobsToActivate(2 - jobs.size())
          .workerName("msg-worker").timeout(Duration.ofMinutes(10)).send().join().getJobs());
      return jobs.size() == 2;
    });
    for (ActivatedJob job : jobs) {
      client.newFailCommand(job.getKey()).useGrpc().retries(0).errorMessage(ERROR).send().join();
    }
    caller = client.newCreateInstanceCommand().bpmnProcessId("msg-caller").latestVersion().send().join()
        .getProcessInstanceKey();
    List<ActivatedJob> settle = new ArrayList<>();
    await("the called instance's msg-settle job").atMost(Duration.ofSeconds(30)).until(() -> {
      settle.addAll(client.newActivateJobsCommand().useGrpc().jobType("msg-settle").maxJobsToActivate(1)
          .workerName("msg-worker").timeout(Duration.ofMinutes(10)).send().join().getJobs());
      return settle.size() == 1;
    });
    failedSettleJob = settle.getFirst();
    client.newFailCommand(failedSettleJob.getKey()).useGrpc().retries(0).errorMessage("settlement refused").send()
        .join();

    await("the runs' last effects in the read model").atMost(Duration.ofSeconds(60)).until(() ->
        client.newCorrelatedMessageSubscriptionSearchRequest().filter(f -> f.processDefinitionId("msg-payment")).send()
            .join().items().size() == 1
            && client.newIncidentSearchRequest().filter(f -> f.processDefinitionId("msg-fragile")).send().join().items()
                .size() == 2
            && client.newProcessInstanceSearchRequest().filter(f -> f.processInstanceKey(payments.get(0))).send()
                .join().items().getFirst().getEndDate() != null
            && client.newIncidentSearchRequest().filter(f -> f.jobKey(failedSettleJob.getKey())).send().join().items()
                .size() == 1);
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  /** A v2 request the 8.8 client has no call for, over plain HTTP with the same credentials. */
  private static JsonNode post(String path, String body) throws Exception {
    HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(node.webUrl() + path))
        .header("Content-Type", "application/json")
        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
            (USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8)))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return JSON.readTree(answer.body());
  }

  private static <F> Stream<DynamicTest> run(Map<String, Consumer<F>> cases, Map<String, List<Long>> expected,
      java.util.function.Function<Consumer<F>, List<Long>> search) {
    return cases.entrySet().stream().map(c -> DynamicTest.dynamicTest(c.getKey(), () ->
        assertThat(search.apply(c.getValue())).as(c.getKey())
            .containsExactlyInAnyOrderElementsOf(expected.get(c.getKey()))));
  }

  @Nested
  class SequenceFlows {

    @Test
    void aCompletedInstancesFlowsAreTheFlowsOfItsModel() {
      List<String> expected = PAYMENT.getModelElementsByType(SequenceFlow.class).stream().map(SequenceFlow::getId)
          .toList();

      var flows = client.newProcessInstanceSequenceFlowsRequest(payments.get(0)).send().join();

      assertThat(flows).extracting(f -> f.getElementId()).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(flows).allSatisfy(flow -> {
        assertThat(flow.getSequenceFlowId()).isEqualTo(payments.get(0) + "_" + flow.getElementId());
        assertThat(flow.getProcessInstanceKey()).isEqualTo(String.valueOf(payments.get(0)));
        assertThat(flow.getProcessDefinitionKey()).isEqualTo(String.valueOf(paymentDefinition));
        assertThat(flow.getProcessDefinitionId()).isEqualTo("msg-payment");
        assertThat(flow.getTenantId()).isEqualTo(TENANT);
      });
    }

    @Test
    void aWaitingInstanceTookOnlyTheFlowToItsWait() {
      var flows = client.newProcessInstanceSequenceFlowsRequest(payments.get(1)).send().join();

      String toWait = PAYMENT.getModelElementsByType(SequenceFlow.class).stream()
          .filter(flow -> flow.getTarget().getId().equals("paid")).findFirst().orElseThrow().getId();
      assertThat(flows).extracting(f -> f.getElementId()).containsExactly(toWait);
    }
  }

  @Nested
  class MessageSubscriptions {

    private List<Long> search(Consumer<MessageSubscriptionFilter> filter) {
      return client.newMessageSubscriptionSearchRequest().filter(filter).page(p -> p.limit(10_000)).send().join().items().stream()
          .map(MessageSubscription::getProcessInstanceKey).filter(payments::contains).toList();
    }

    @TestFactory
    Stream<DynamicTest> aFilterOnEachFieldFindsTheSubscriptions() {
      long first = payments.get(0);
      long second = payments.get(1);
      long waiting = client.newElementInstanceSearchRequest().filter(f -> f.processInstanceKey(second).elementId("paid"))
          .send().join().singleItem().getElementInstanceKey();
      Map<String, Consumer<MessageSubscriptionFilter>> cases = new java.util.LinkedHashMap<>();
      Map<String, List<Long>> expected = new java.util.HashMap<>();
      cases.put("processDefinitionId", f -> f.processDefinitionId("msg-payment"));
      expected.put("processDefinitionId", List.of(first, second));
      cases.put("processInstanceKey", f -> f.processInstanceKey(second));
      expected.put("processInstanceKey", List.of(second));
      cases.put("elementId", f -> f.elementId("paid"));
      expected.put("elementId", List.of(first, second));
      cases.put("elementInstanceKey", f -> f.elementInstanceKey(waiting));
      expected.put("elementInstanceKey", List.of(second));
      cases.put("state CORRELATED", f -> f.messageSubscriptionState(MessageSubscriptionState.CORRELATED));
      expected.put("state CORRELATED", List.of(first));
      cases.put("state CREATED", f -> f.messageSubscriptionState(MessageSubscriptionState.CREATED));
      expected.put("state CREATED", List.of(second));
      cases.put("messageName", f -> f.messageName("msg-paid"));
      expected.put("messageName", List.of(first, second));
      cases.put("correlationKey", f -> f.correlationKey("p-2"));
      expected.put("correlationKey", List.of(second));
      cases.put("tenantId", f -> f.tenantId(TENANT));
      expected.put("tenantId", List.of(first, second));
      cases.put("a filter that matches nothing", f -> f.correlationKey("p-3"));
      expected.put("a filter that matches nothing", List.of());
      return run(cases, expected, this::search);
    }

    @Test
    void theCorrelatedSubscriptionNamesTheMessageTheEngineKeyed() {
      CorrelatedMessageSubscription correlated = client.newCorrelatedMessageSubscriptionSearchRequest()
          .filter(f -> f.processInstanceKey(payments.get(0))).send().join().singleItem();
      MessageSubscription subscription = client.newMessageSubscriptionSearchRequest()
          .filter(f -> f.processInstanceKey(payments.get(0))).send().join().singleItem();

      assertThat(correlated.getMessageKey()).isEqualTo(paidMessage);
      assertThat(correlated.getSubscriptionKey()).isEqualTo(subscription.getMessageSubscriptionKey());
      assertThat(correlated.getMessageName()).isEqualTo("msg-paid");
      assertThat(correlated.getCorrelationKey()).isEqualTo("p-1");
      assertThat(correlated.getElementId()).isEqualTo("paid");
      assertThat(correlated.getProcessDefinitionId()).isEqualTo("msg-payment");
      assertThat(correlated.getTenantId()).isEqualTo(TENANT);
      assertThat(correlated.getCorrelationTime()).isNotNull();
    }

    @Test
    void answerTheDefinitionOfTheirInstanceWhichZeebe86sRecordsDoNotCarry() {
      List<Long> definitions = client.newMessageSubscriptionSearchRequest()
          .filter(f -> f.processDefinitionId("msg-payment")).send().join().items().stream()
          .filter(subscription -> payments.contains(subscription.getProcessInstanceKey()))
          .map(MessageSubscription::getProcessDefinitionKey).toList();

      assertThat(definitions).containsExactly(paymentDefinition, paymentDefinition);
    }

    @TestFactory
    Stream<DynamicTest> aFilterOnEachCorrelatedFieldFindsTheCorrelation() {
      long first = payments.get(0);
      Map<String, Consumer<CorrelatedMessageSubscriptionFilter>> cases = new java.util.LinkedHashMap<>();
      cases.put("messageKey", f -> f.messageKey(paidMessage));
      cases.put("messageName", f -> f.messageName("msg-paid"));
      cases.put("correlationKey", f -> f.correlationKey("p-1"));
      cases.put("processInstanceKey", f -> f.processInstanceKey(first));
      cases.put("processDefinitionId", f -> f.processDefinitionId("msg-payment"));
      cases.put("elementId", f -> f.elementId("paid"));
      cases.put("partitionId", f -> f.partitionId(1));
      cases.put("tenantId", f -> f.tenantId(TENANT));
      Map<String, List<Long>> expected = new java.util.HashMap<>();
      cases.keySet().forEach(name -> expected.put(name, List.of(first)));
      cases.put("a filter that matches nothing", f -> f.correlationKey("p-2"));
      expected.put("a filter that matches nothing", List.of());
      return run(cases, expected, filter -> client.newCorrelatedMessageSubscriptionSearchRequest().filter(filter)
          .page(p -> p.limit(10_000)).send().join().items().stream().map(CorrelatedMessageSubscription::getProcessInstanceKey)
          .filter(payments::contains).toList());
    }
  }

  /** An instance's call hierarchy and the incidents of an instance and the instances it called. */
  @Nested
  class CallHierarchy {

    private long called() {
      return client.newProcessInstanceSearchRequest().filter(f -> f.parentProcessInstanceKey(caller)).send().join()
          .singleItem().getProcessInstanceKey();
    }

    @Test
    void ofACalledInstanceRunsFromItsCallerToItself() {
      long called = called();

      var hierarchy = client.newProcessInstanceGetCallHierarchyRequest(called).send().join();

      assertThat(hierarchy).extracting(e -> e.getProcessInstanceKey()).containsExactly(caller, called);
      assertThat(hierarchy).extracting(e -> e.getProcessDefinitionKey())
          .containsExactly(callerDefinition, calledDefinition);
      assertThat(hierarchy).extracting(e -> e.getProcessDefinitionName()).containsExactly("Message caller", "msg-called");
    }

    @Test
    void ofARootInstanceIsEmpty() {
      assertThat(client.newProcessInstanceGetCallHierarchyRequest(caller).send().join()).isEmpty();
    }

    @Test
    void theIncidentsOfTheCallerAreThoseOfTheInstanceItCalled() {
      long called = called();

      var ofCaller = client.newIncidentsByProcessInstanceSearchRequest(caller).send().join().items();
      var ofCalled = client.newIncidentsByProcessInstanceSearchRequest(called).page(p -> p.limit(5)).send().join()
          .items();

      assertThat(ofCaller).extracting(i -> i.getJobKey()).containsExactly(failedSettleJob.getKey());
      assertThat(ofCaller).extracting(i -> i.getProcessInstanceKey()).containsExactly(called);
      assertThat(ofCaller.getFirst().getErrorMessage()).isEqualTo("settlement refused");
      assertThat(ofCalled).extracting(i -> i.getIncidentKey()).containsExactly(ofCaller.getFirst().getIncidentKey());
    }
  }

  /** The 8.9 statistics; the error's hash is Java's String.hashCode of the message the worker gave. */
  @Nested
  class Statistics {

    @Test
    void incidentsByErrorCountTheTwoFailedInstancesOnce() throws Exception {
      JsonNode answer = post("/v2/incidents/statistics/process-instances-by-error", "{}");

      // the shared node's other runs have errors of their own: this one is counted once, in one item
      List<JsonNode> ours = new ArrayList<>();
      answer.path("items").forEach(item -> {
        if (item.path("errorHashCode").asInt() == ERROR.hashCode()) {
          ours.add(item);
        }
      });
      assertThat(ours).hasSize(1);
      JsonNode error = ours.getFirst();
      assertThat(error.path("errorHashCode").asInt()).isEqualTo(ERROR.hashCode());
      assertThat(error.path("errorMessage").asText()).isEqualTo(ERROR);
      assertThat(error.path("activeInstancesWithErrorCount").asLong()).isEqualTo(2);
    }

    @Test
    void incidentsOfTheErrorByDefinitionNameTheDeployedDefinition() throws Exception {
      JsonNode answer = post("/v2/incidents/statistics/process-instances-by-definition",
          "{\"filter\": {\"errorHashCode\": " + ERROR.hashCode() + "}}");

      assertThat(answer.path("items")).hasSize(1);
      JsonNode definition = answer.path("items").get(0);
      assertThat(definition.path("processDefinitionKey").asText()).isEqualTo(String.valueOf(fragileDefinition));
      assertThat(definition.path("processDefinitionId").asText()).isEqualTo("msg-fragile");
      assertThat(definition.path("processDefinitionName").asText()).isEqualTo("Message fragile");
      assertThat(definition.path("processDefinitionVersion").asInt()).isEqualTo(1);
      assertThat(definition.path("tenantId").asText()).isEqualTo(TENANT);
      assertThat(definition.path("activeInstancesWithErrorCount").asLong()).isEqualTo(2);
    }

    @Test
    void activeInstancesByVersionSplitByIncidents() throws Exception {
      JsonNode fragile = post("/v2/process-definitions/statistics/process-instances-by-version",
          "{\"filter\": {\"processDefinitionId\": \"msg-fragile\"}}");
      JsonNode payment = post("/v2/process-definitions/statistics/process-instances-by-version",
          "{\"filter\": {\"processDefinitionId\": \"msg-payment\"}}");

      assertThat(fragile.path("items")).hasSize(1);
      assertThat(fragile.path("items").get(0).path("processDefinitionKey").asText())
          .isEqualTo(String.valueOf(fragileDefinition));
      assertThat(fragile.path("items").get(0).path("activeInstancesWithIncidentCount").asLong()).isEqualTo(2);
      assertThat(fragile.path("items").get(0).path("activeInstancesWithoutIncidentCount").asLong()).isZero();
      // p-1 completed after its message; p-2 waits
      assertThat(payment.path("items").get(0).path("activeInstancesWithIncidentCount").asLong()).isZero();
      assertThat(payment.path("items").get(0).path("activeInstancesWithoutIncidentCount").asLong()).isEqualTo(1);
    }
  }
}
