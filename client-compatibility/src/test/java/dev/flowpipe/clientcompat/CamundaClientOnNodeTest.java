package dev.flowpipe.clientcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.camunda.client.CamundaClient;
import io.camunda.client.api.response.ActivatedJob;
import io.camunda.client.api.response.DeploymentEvent;
import io.camunda.client.api.response.PartitionBrokerHealth;
import io.camunda.client.api.response.PartitionBrokerRole;
import io.camunda.client.api.response.Topology;
import io.camunda.client.api.search.enums.ElementInstanceState;
import io.camunda.client.api.search.enums.ElementInstanceType;
import io.camunda.client.api.search.enums.IncidentErrorType;
import io.camunda.client.api.search.enums.IncidentState;
import io.camunda.client.api.search.enums.JobKind;
import io.camunda.client.api.search.enums.JobState;
import io.camunda.client.api.search.enums.ListenerEventType;
import io.camunda.client.api.search.enums.ProcessInstanceState;
import io.camunda.client.api.search.filter.ElementInstanceFilter;
import io.camunda.client.api.search.filter.IncidentFilter;
import io.camunda.client.api.search.filter.JobFilter;
import io.camunda.client.api.search.filter.ProcessDefinitionFilter;
import io.camunda.client.api.search.filter.ProcessInstanceFilter;
import io.camunda.client.api.search.filter.VariableFilter;
import io.camunda.client.api.search.response.ElementInstance;
import io.camunda.client.api.search.response.Incident;
import io.camunda.client.api.search.response.Job;
import io.camunda.client.api.search.response.ProcessDefinition;
import io.camunda.client.api.response.StatusResponse;
import io.camunda.client.api.search.response.ProcessInstance;
import io.camunda.client.api.search.response.Variable;
import io.camunda.client.api.statistics.response.ProcessElementStatistics;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Camunda's official Java client (camunda-client-java 8.8, unchanged, REST preferred) against a real node with basic
 * authentication: REST to the node's web app, gRPC to its gateway for what the web app does not serve (deployment,
 * job activation, completion and failure). Each search the client offers for an entity we serve runs with a filter on
 * each field the read model holds, through the client's own filter builders (which send the empty {@code $in},
 * {@code $notIn}, {@code tags}, {@code variables} and {@code $or} lists); the expected keys come from the engine's
 * answers to the commands (deployment, creation, activation), not from the read model.
 *
 * <p>The runs: three {@code client-order} instances (the first completed, the second waiting at {@code ship} with its
 * job held by a worker, the third cancelled there), and one {@code client-fragile} instance whose job failed without
 * retries (an incident). The node is shared with this module's other classes: each search keeps the entities of these
 * runs only, so the filters are checked on exactly these runs, whichever classes ran before.
 */
@ExtendWith(SharedNode.class)
class CamundaClientOnNodeTest {

  private static final String USER = SharedNode.OPERATOR;
  private static final String PASSWORD = SharedNode.OPERATOR_PASSWORD;
  private static final String WORKER = "client-worker";
  private static final String TENANT = "<default>";

  private static final BpmnModelInstance ORDER =
      Bpmn.createExecutableProcess("client-order").name("Client order").versionTag("v1").startEvent("received")
          .serviceTask("prepare", t -> t.zeebeJobType("client-prepare"))
          .serviceTask("ship", t -> t.name("Ship the order").zeebeJobType("client-ship"))
          .endEvent("shipped").done();

  private static final BpmnModelInstance FRAGILE =
      Bpmn.createExecutableProcess("client-fragile").name("Client fragile").startEvent("begin")
          .serviceTask("charge", t -> t.name("Charge the card").zeebeJobType("client-charge")
              .zeebeTaskHeader("priority", "high"))
          .endEvent("charged").done();

  private static CamundaClient client;

  private static long orderDefinition;
  private static long fragileDefinition;
  /** The order instances: completed, waiting at ship, cancelled at ship. */
  private static final List<Long> orders = new ArrayList<>();
  private static long fragile;
  private static final List<ActivatedJob> shipJobs = new ArrayList<>();
  private static ActivatedJob heldShipJob;
  private static ActivatedJob cancelledShipJob;
  private static ActivatedJob failedChargeJob;

  @BeforeAll
  static void runProcessesOnANode(NodeInChildProcess shared) {
    client = shared.client(USER, PASSWORD);

    // the web app serves no deployments or job activation: these go to the gateway
    DeploymentEvent deployment = client.newDeployResourceCommand().useGrpc()
        .addProcessModel(ORDER, "client-order.bpmn").addProcessModel(FRAGILE, "client-fragile.bpmn").send().join();
    deployment.getProcesses().forEach(process -> {
      if (process.getBpmnProcessId().equals("client-order")) {
        orderDefinition = process.getProcessDefinitionKey();
      } else {
        fragileDefinition = process.getProcessDefinitionKey();
      }
    });
    // creation and cancellation over REST: the web app's operations
    for (int i = 1; i <= 3; i++) {
      orders.add(client.newCreateInstanceCommand().bpmnProcessId("client-order").latestVersion()
          .variables(Map.of("orderId", "o-" + i, "amount", i * 10)).send().join().getProcessInstanceKey());
    }
    fragile = client.newCreateInstanceCommand().bpmnProcessId("client-fragile").latestVersion()
        .variables(Map.of("card", "4111")).send().join().getProcessInstanceKey();
    for (ActivatedJob job : activate("client-prepare", 3)) {
      client.newCompleteCommand(job.getKey()).useGrpc().variables(Map.of("prepared", true)).send().join();
    }
    shipJobs.addAll(activate("client-ship", 3));
    for (ActivatedJob job : shipJobs) {
      if (job.getProcessInstanceKey() == orders.get(0)) {
        client.newCompleteCommand(job.getKey()).useGrpc().send().join();
      } else if (job.getProcessInstanceKey() == orders.get(1)) {
        heldShipJob = job;
      } else {
        cancelledShipJob = job;
      }
    }
    client.newCancelInstanceCommand(orders.get(2)).send().join();
    failedChargeJob = activate("client-charge", 1).getFirst();
    client.newFailCommand(failedChargeJob.getKey()).useGrpc().retries(0).errorMessage("card declined").send().join();

    // the last effects of the runs, through the client's own searches
    await("the runs' last effects in the read model").atMost(Duration.ofSeconds(60)).until(() ->
        client.newProcessInstanceSearchRequest().filter(f -> f.processDefinitionId("client-order")
            .state(ProcessInstanceState.TERMINATED)).send().join().items().size() == 1
            && client.newIncidentSearchRequest().filter(f -> f.processInstanceKey(fragile)).send().join().items()
                .size() == 1
            && client.newJobSearchRequest().filter(f -> f.type("client-ship").state(JobState.CANCELED)).send().join()
                .items().size() == 1
            && client.newProcessInstanceSearchRequest().filter(f -> f.processDefinitionId("client-order")
                .state(ProcessInstanceState.COMPLETED)).send().join().items().size() == 1);
  }

  /** Whether a process instance is one of this class's runs (the node's read model holds other classes' too). */
  private static boolean ours(long processInstanceKey) {
    return processInstanceKey == fragile || orders.contains(processInstanceKey);
  }

  /** The ship job the runs completed (that of the first order). */
  private static Stream<Long> completedShipJobs() {
    return shipJobs.stream().filter(job -> job.getProcessInstanceKey() == orders.get(0)).map(ActivatedJob::getKey);
  }

  /** Activates {@code count} jobs of a type over gRPC, for ten minutes, waiting until there are as many. */
  private static List<ActivatedJob> activate(String type, int count) {
    List<ActivatedJob> jobs = new ArrayList<>();
    await("activate " + count + " " + type).atMost(Duration.ofSeconds(30)).until(() -> {
      jobs.addAll(client.newActivateJobsCommand().useGrpc().jobType(type).maxJobsToActivate(count - jobs.size())
          .workerName(WORKER).timeout(Duration.ofMinutes(10)).send().join().getJobs());
      return jobs.size() >= count;
    });
    return jobs;
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  /** A named filter and the keys it must find, in any order. */
  private record Case<F>(String name, Consumer<F> filter, List<Long> expected) {}

  private static <F> Case<F> finds(String name, Consumer<F> filter, Long... expected) {
    return new Case<>(name, filter, List.of(expected));
  }

  /** One test per case: the search with the case's filter finds exactly its keys. */
  private static <F> Stream<DynamicTest> run(List<Case<F>> cases, Function<Consumer<F>, List<Long>> search) {
    return cases.stream().map(c -> DynamicTest.dynamicTest(c.name(), () ->
        assertThat(search.apply(c.filter())).as(c.name()).containsExactlyInAnyOrderElementsOf(c.expected())));
  }

  private static ProcessInstance instance(long key) {
    return client.newProcessInstanceGetRequest(key).send().join();
  }

  private static ElementInstance elementOf(long processInstanceKey, String elementId) {
    return client.newElementInstanceSearchRequest()
        .filter(f -> f.processInstanceKey(processInstanceKey).elementId(elementId)).send().join().singleItem();
  }

  @Nested
  class ProcessDefinitions {

    private List<Long> search(Consumer<ProcessDefinitionFilter> filter) {
      return client.newProcessDefinitionSearchRequest().filter(filter).page(p -> p.limit(10_000)).send().join().items().stream()
          .map(ProcessDefinition::getProcessDefinitionKey)
          .filter(key -> key == orderDefinition || key == fragileDefinition).toList();
    }

    @TestFactory
    Stream<DynamicTest> aFilterOnEachFieldFindsTheDefinition() {
      return run(List.<Case<ProcessDefinitionFilter>>of(
          finds("processDefinitionKey", f -> f.processDefinitionKey(orderDefinition), orderDefinition),
          finds("name", f -> f.name("Client order"), orderDefinition),
          finds("name $like", f -> f.name(p -> p.like("Client o*")), orderDefinition),
          finds("resourceName", f -> f.resourceName("client-fragile.bpmn"), fragileDefinition),
          finds("version", f -> f.version(1), orderDefinition, fragileDefinition),
          finds("processDefinitionId", f -> f.processDefinitionId("client-fragile"), fragileDefinition),
          finds("processDefinitionId $in", f -> f.processDefinitionId(p -> p.in("client-order", "client-fragile")),
              orderDefinition, fragileDefinition),
          finds("processDefinitionId $neq", f -> f.processDefinitionId(p -> p.neq("client-order")),
              fragileDefinition),
          finds("tenantId", f -> f.tenantId(TENANT), orderDefinition, fragileDefinition),
          finds("versionTag", f -> f.versionTag("v1"), orderDefinition),
          finds("a filter that matches nothing", f -> f.processDefinitionId("client-order").version(2))),
          this::search);
    }

    @Test
    void getByKeyAnswersTheDefinition() {
      ProcessDefinition definition = client.newProcessDefinitionGetRequest(orderDefinition).send().join();

      assertThat(definition.getProcessDefinitionKey()).isEqualTo(orderDefinition);
      assertThat(definition.getProcessDefinitionId()).isEqualTo("client-order");
      assertThat(definition.getName()).isEqualTo("Client order");
      assertThat(definition.getVersion()).isEqualTo(1);
      assertThat(definition.getResourceName()).isEqualTo("client-order.bpmn");
      assertThat(definition.getTenantId()).isEqualTo(TENANT);
    }

    @Test
    void theXmlGetAnswersTheDeployedBpmn() {
      String xml = client.newProcessDefinitionGetXmlRequest(orderDefinition).send().join();

      assertThat(xml).contains("id=\"client-order\"").contains("id=\"ship\"");
    }
  }

  @Nested
  class ProcessInstances {

    private List<Long> search(Consumer<ProcessInstanceFilter> filter) {
      return client.newProcessInstanceSearchRequest().filter(filter).page(p -> p.limit(10_000)).send().join().items().stream()
          .map(ProcessInstance::getProcessInstanceKey).filter(CamundaClientOnNodeTest::ours).toList();
    }

    @TestFactory
    Stream<DynamicTest> aFilterOnEachFieldFindsTheInstances() {
      OffsetDateTime started = instance(orders.get(1)).getStartDate();
      Long[] startedThen = Stream.concat(orders.stream(), Stream.of(fragile))
          .filter(key -> instance(key).getStartDate().isEqual(started)).toArray(Long[]::new);
      return run(List.<Case<ProcessInstanceFilter>>of(
          finds("processInstanceKey", f -> f.processInstanceKey(orders.get(1)), orders.get(1)),
          finds("processInstanceKey $in", f -> f.processInstanceKey(p -> p.in(orders.get(0), fragile)),
              orders.get(0), fragile),
          finds("processInstanceKey $notIn", f -> f.processDefinitionId("client-order")
              .processInstanceKey(p -> p.notIn(orders.get(0))), orders.get(1), orders.get(2)),
          finds("processDefinitionId", f -> f.processDefinitionId("client-order"), orders.toArray(Long[]::new)),
          finds("processDefinitionId $like", f -> f.processDefinitionId(p -> p.like("client-f*")), fragile),
          finds("processDefinitionVersion", f -> f.processDefinitionVersion(1), orders.get(0), orders.get(1),
              orders.get(2), fragile),
          finds("processDefinitionKey", f -> f.processDefinitionKey(fragileDefinition), fragile),
          finds("parentProcessInstanceKey $exists false", f -> f.processDefinitionId("client-fragile")
              .parentProcessInstanceKey(p -> p.exists(false)), fragile),
          finds("parentElementInstanceKey $exists false", f -> f.processDefinitionId("client-fragile")
              .parentElementInstanceKey(p -> p.exists(false)), fragile),
          finds("startDate $gte $lte", f -> f.startDate(p -> p.gte(started).lte(started)), startedThen),
          finds("endDate $exists", f -> f.endDate(p -> p.exists(true)), orders.get(0), orders.get(2)),
          finds("state COMPLETED", f -> f.state(ProcessInstanceState.COMPLETED), orders.get(0)),
          finds("state TERMINATED", f -> f.state(ProcessInstanceState.TERMINATED), orders.get(2)),
          finds("state $in", f -> f.state(p -> p.in(ProcessInstanceState.ACTIVE)), orders.get(1), fragile),
          finds("hasIncident", f -> f.hasIncident(true), fragile),
          finds("processDefinitionName", f -> f.processDefinitionName("Client order"), orders.toArray(Long[]::new)),
          finds("processDefinitionName $like", f -> f.processDefinitionName(p -> p.like("Client f*")), fragile),
          finds("processDefinitionVersionTag", f -> f.processDefinitionVersionTag("v1"),
              orders.toArray(Long[]::new)),
          finds("tenantId", f -> f.tenantId(TENANT), orders.get(0), orders.get(1), orders.get(2), fragile),
          finds("$or", f -> f.orFilters(List.of(or -> or.processDefinitionId("client-fragile"),
              or -> or.state(ProcessInstanceState.COMPLETED))), fragile, orders.get(0)),
          finds("a filter that matches nothing", f -> f.processDefinitionId("client-fragile")
              .state(ProcessInstanceState.COMPLETED)),
          // the filters on other entities (issue 34, ADR 15), expected from what the runs sent the engine
          finds("variables (a string, as JSON text)", f -> f.variables(List.of(v -> v.name("orderId").value("\"o-2\""))),
              orders.get(1)),
          finds("variables (a number)", f -> f.variables(List.of(v -> v.name("amount").value("30"))), orders.get(2)),
          finds("variables $like", f -> f.variables(List.of(v -> v.name("orderId").value(p -> p.like("\"o-*")))),
              orders.toArray(Long[]::new)),
          finds("variables, two that must both hold", f -> f.variables(List.of(v -> v.name("orderId").value("\"o-1\""),
              v -> v.name("prepared").value("true"))), orders.get(0)),
          finds("variables $neq", f -> f.variables(List.of(v -> v.name("orderId").value(p -> p.neq("\"o-1\"")))),
              orders.get(1), orders.get(2)),
          finds("errorMessage", f -> f.errorMessage("card declined"), fragile),
          finds("errorMessage $like", f -> f.errorMessage(p -> p.like("card*")), fragile),
          finds("incidentErrorHashCode", f -> f.incidentErrorHashCode("card declined".hashCode()), fragile),
          finds("elementId", f -> f.elementId("ship"), orders.toArray(Long[]::new)),
          finds("elementId and elementInstanceState", f -> f.elementId("ship")
              .elementInstanceState(ElementInstanceState.ACTIVE), orders.get(1)),
          finds("elementInstanceState", f -> f.processDefinitionId("client-order")
              .elementInstanceState(ElementInstanceState.TERMINATED), orders.get(2)),
          finds("hasElementInstanceIncident", f -> f.hasElementInstanceIncident(true), fragile),
          finds("hasRetriesLeft false", f -> f.processDefinitionId("client-fragile").hasRetriesLeft(false), fragile),
          finds("hasRetriesLeft true: no job failed with retries left", f -> f.hasRetriesLeft(true))),
          this::search);
    }

    @Test
    void getByKeyAnswersTheInstance() {
      ProcessInstance cancelled = instance(orders.get(2));

      assertThat(cancelled.getProcessInstanceKey()).isEqualTo(orders.get(2));
      assertThat(cancelled.getProcessDefinitionKey()).isEqualTo(orderDefinition);
      assertThat(cancelled.getProcessDefinitionId()).isEqualTo("client-order");
      assertThat(cancelled.getProcessDefinitionVersion()).isEqualTo(1);
      assertThat(cancelled.getProcessDefinitionName()).isEqualTo("Client order");
      assertThat(cancelled.getProcessDefinitionVersionTag()).isEqualTo("v1");
      assertThat(cancelled.getState()).isEqualTo(ProcessInstanceState.TERMINATED);
      assertThat(cancelled.getHasIncident()).isFalse();
      assertThat(cancelled.getEndDate()).isAfterOrEqualTo(cancelled.getStartDate());
      assertThat(cancelled.getTenantId()).isEqualTo(TENANT);
    }
  }

  @Nested
  class ElementInstances {

    private List<Long> search(Consumer<ElementInstanceFilter> filter) {
      return client.newElementInstanceSearchRequest().filter(filter).page(p -> p.limit(10_000)).send().join().items().stream()
          .filter(element -> ours(element.getProcessInstanceKey())).map(ElementInstance::getElementInstanceKey)
          .toList();
    }

    @TestFactory
    Stream<DynamicTest> aFilterOnEachFieldFindsTheElementInstances() {
      long waiting = heldShipJob.getElementInstanceKey();
      long cancelled = cancelledShipJob.getElementInstanceKey();
      long charging = failedChargeJob.getElementInstanceKey();
      long shipped = elementOf(orders.get(0), "ship").getElementInstanceKey();
      long incident = client.newIncidentSearchRequest().filter(f -> f.processInstanceKey(fragile)).send().join()
          .singleItem().getIncidentKey();
      OffsetDateTime started = client.newElementInstanceGetRequest(waiting).send().join().getStartDate();
      return run(List.<Case<ElementInstanceFilter>>of(
          finds("elementInstanceKey", f -> f.elementInstanceKey(waiting), waiting),
          finds("processInstanceKey", f -> f.processInstanceKey(orders.get(1)).elementId("ship"), waiting),
          finds("processDefinitionKey", f -> f.processDefinitionKey(orderDefinition).elementId("ship"),
              shipped, waiting, cancelled),
          finds("processDefinitionId", f -> f.processDefinitionId("client-fragile").elementId("charge"), charging),
          finds("elementId", f -> f.elementId("charge"), charging),
          finds("elementName", f -> f.elementName("Ship the order"), shipped, waiting, cancelled),
          finds("state", f -> f.elementId("ship").state(ElementInstanceState.TERMINATED), cancelled),
          finds("state $in", f -> f.elementId("ship").state(p -> p.in(ElementInstanceState.ACTIVE)), waiting),
          finds("type", f -> f.processInstanceKey(orders.get(1)).type(ElementInstanceType.SERVICE_TASK)
              .state(ElementInstanceState.ACTIVE), waiting),
          finds("hasIncident", f -> f.hasIncident(true), charging),
          finds("incidentKey", f -> f.incidentKey(incident), charging),
          finds("tenantId", f -> f.tenantId(TENANT).elementId("charge"), charging),
          finds("startDate", f -> f.elementId("ship").startDate(started), waiting),
          finds("endDate $exists", f -> f.elementId("ship").endDate(p -> p.exists(true)), shipped, cancelled),
          finds("a filter that matches nothing", f -> f.elementId("charge").state(ElementInstanceState.COMPLETED))),
          this::search);
    }

    @Test
    void getByKeyAnswersTheElementInstance() {
      ElementInstance waiting = client.newElementInstanceGetRequest(heldShipJob.getElementInstanceKey()).send().join();

      assertThat(waiting.getElementInstanceKey()).isEqualTo(heldShipJob.getElementInstanceKey());
      assertThat(waiting.getProcessInstanceKey()).isEqualTo(orders.get(1));
      assertThat(waiting.getProcessDefinitionKey()).isEqualTo(orderDefinition);
      assertThat(waiting.getElementId()).isEqualTo("ship");
      assertThat(waiting.getElementName()).isEqualTo("Ship the order");
      assertThat(waiting.getType()).isEqualTo(ElementInstanceType.SERVICE_TASK);
      assertThat(waiting.getState()).isEqualTo(ElementInstanceState.ACTIVE);
      assertThat(waiting.getEndDate()).isNull();
    }
  }

  @Nested
  class Variables {

    private List<Long> search(Consumer<VariableFilter> filter) {
      return client.newVariableSearchRequest().filter(filter).page(p -> p.limit(10_000)).send().join().items().stream()
          .filter(variable -> ours(variable.getProcessInstanceKey())).map(Variable::getVariableKey).toList();
    }

    private Variable orderIdOf(long processInstanceKey) {
      return client.newVariableSearchRequest().filter(f -> f.processInstanceKey(processInstanceKey).name("orderId"))
          .send().join().singleItem();
    }

    @TestFactory
    Stream<DynamicTest> aFilterOnEachFieldFindsTheVariables() {
      long orderId = orderIdOf(orders.get(1)).getVariableKey();
      List<Long> orderIds = orders.stream().map(key -> orderIdOf(key).getVariableKey()).toList();
      return run(List.<Case<VariableFilter>>of(
          finds("variableKey", f -> f.variableKey(orderId), orderId),
          finds("variableKey $in", f -> f.variableKey(p -> p.in(orderIds)), orderIds.toArray(Long[]::new)),
          finds("name", f -> f.name("orderId"), orderIds.toArray(Long[]::new)),
          finds("name $like", f -> f.processInstanceKey(orders.get(1)).name(p -> p.like("order*")), orderId),
          finds("value", f -> f.value("\"o-2\""), orderId),
          finds("scopeKey", f -> f.scopeKey(orders.get(1)).name("orderId"), orderId),
          finds("processInstanceKey", f -> f.processInstanceKey(orders.get(1)).name("orderId"), orderId),
          finds("tenantId", f -> f.tenantId(TENANT).name("orderId"), orderIds.toArray(Long[]::new)),
          finds("isTruncated", f -> f.isTruncated(false).value("\"o-2\""), orderId),
          finds("a filter that matches nothing", f -> f.name("orderId").value("\"o-9\""))),
          this::search);
    }

    @Test
    void getByKeyAnswersTheVariable() {
      Variable orderId = client.newVariableGetRequest(orderIdOf(orders.get(2)).getVariableKey()).send().join();

      assertThat(orderId.getName()).isEqualTo("orderId");
      assertThat(orderId.getValue()).isEqualTo("\"o-3\"");
      assertThat(orderId.getScopeKey()).isEqualTo(orders.get(2));
      assertThat(orderId.getProcessInstanceKey()).isEqualTo(orders.get(2));
      assertThat(orderId.isTruncated()).isFalse();
    }
  }

  @Nested
  class Incidents {

    private List<Long> search(Consumer<IncidentFilter> filter) {
      return client.newIncidentSearchRequest().filter(filter).page(p -> p.limit(10_000)).send().join().items().stream()
          .filter(incident -> ours(incident.getProcessInstanceKey())).map(Incident::getIncidentKey).toList();
    }

    @TestFactory
    Stream<DynamicTest> aFilterOnEachFieldFindsTheIncident() {
      Incident incident = client.newIncidentSearchRequest().filter(f -> f.processInstanceKey(fragile)).send().join()
          .singleItem();
      long key = incident.getIncidentKey();
      return run(List.<Case<IncidentFilter>>of(
          finds("incidentKey", f -> f.incidentKey(key), key),
          finds("processDefinitionKey", f -> f.processDefinitionKey(fragileDefinition), key),
          finds("processDefinitionId", f -> f.processDefinitionId("client-fragile"), key),
          finds("processInstanceKey", f -> f.processInstanceKey(fragile), key),
          finds("errorType", f -> f.errorType(IncidentErrorType.JOB_NO_RETRIES), key),
          finds("elementId", f -> f.elementId("charge"), key),
          finds("elementInstanceKey", f -> f.elementInstanceKey(failedChargeJob.getElementInstanceKey()), key),
          finds("creationTime", f -> f.creationTime(p -> p.gte(incident.getCreationTime())
              .lte(incident.getCreationTime())), key),
          finds("state", f -> f.state(IncidentState.ACTIVE), key),
          finds("errorMessage", f -> f.errorMessage("card declined"), key),
          finds("jobKey", f -> f.jobKey(failedChargeJob.getKey()), key),
          finds("tenantId", f -> f.tenantId(TENANT), key),
          finds("a filter that matches nothing", f -> f.state(IncidentState.RESOLVED)),
          finds("another that matches nothing", f -> f.errorType(IncidentErrorType.IO_MAPPING_ERROR))),
          this::search);
    }

    @Test
    void getByKeyAnswersTheIncident() {
      long key = client.newIncidentSearchRequest().filter(f -> f.processInstanceKey(fragile)).send().join()
          .singleItem().getIncidentKey();

      Incident incident = client.newIncidentGetRequest(key).send().join();

      assertThat(incident.getProcessInstanceKey()).isEqualTo(fragile);
      assertThat(incident.getErrorType()).isEqualTo(IncidentErrorType.JOB_NO_RETRIES);
      assertThat(incident.getErrorMessage()).isEqualTo("card declined");
      assertThat(incident.getElementId()).isEqualTo("charge");
      assertThat(incident.getJobKey()).isEqualTo(failedChargeJob.getKey());
      assertThat(incident.getState()).isEqualTo(IncidentState.ACTIVE);
    }
  }

  @Nested
  class Jobs {

    private List<Long> search(Consumer<JobFilter> filter) {
      return client.newJobSearchRequest().filter(filter).page(p -> p.limit(10_000)).send().join().items().stream()
          .filter(job -> ours(job.getProcessInstanceKey())).map(Job::getJobKey).toList();
    }

    @TestFactory
    Stream<DynamicTest> aFilterOnEachFieldFindsTheJobs() {
      long held = heldShipJob.getKey();
      long charge = failedChargeJob.getKey();
      // the engine's deadline, as the activation answered it; jobs activated together may share it
      OffsetDateTime deadline =
          OffsetDateTime.ofInstant(Instant.ofEpochMilli(heldShipJob.getDeadline()), ZoneOffset.UTC);
      Long[] dueThen = shipJobs.stream().filter(job -> job.getDeadline() == heldShipJob.getDeadline())
          .map(ActivatedJob::getKey).toArray(Long[]::new);
      return run(List.<Case<JobFilter>>of(
          finds("jobKey", f -> f.jobKey(held), held),
          finds("jobKey $in", f -> f.jobKey(p -> p.in(held, charge)), held, charge),
          finds("type", f -> f.type("client-ship"), shipJobs.stream().map(ActivatedJob::getKey).toArray(Long[]::new)),
          finds("worker", f -> f.worker(WORKER).state(JobState.CREATED), held),
          finds("state CREATED (activated)", f -> f.type("client-ship").state(JobState.CREATED), held),
          finds("state CANCELED", f -> f.state(JobState.CANCELED), cancelledShipJob.getKey()),
          finds("state FAILED", f -> f.state(JobState.FAILED), charge),
          finds("retries", f -> f.retries(0), charge),
          finds("processDefinitionId", f -> f.processDefinitionId("client-fragile"), charge),
          finds("processDefinitionKey", f -> f.processDefinitionKey(fragileDefinition), charge),
          finds("processInstanceKey", f -> f.processInstanceKey(orders.get(1)).type("client-ship"), held),
          finds("elementId", f -> f.elementId("charge"), charge),
          finds("elementInstanceKey", f -> f.elementInstanceKey(heldShipJob.getElementInstanceKey()), held),
          finds("errorCode $exists false", f -> f.type("client-charge").errorCode(p -> p.exists(false)), charge),
          finds("deadline", f -> f.deadline(p -> p.gte(deadline).lte(deadline)).type("client-ship"), dueThen),
          finds("tenantId", f -> f.tenantId(TENANT).type("client-charge"), charge),
          finds("errorMessage", f -> f.errorMessage("card declined"), charge),
          finds("kind", f -> f.kind(JobKind.BPMN_ELEMENT).type("client-charge"), charge),
          finds("listenerEventType", f -> f.listenerEventType(ListenerEventType.UNSPECIFIED).type("client-charge"),
              charge),
          // failed with no retries left: the flag is false (the engine's answer to the fail command above)
          finds("hasFailedWithRetriesLeft", f -> f.hasFailedWithRetriesLeft(false).type("client-charge"), charge),
          finds("endTime $exists", f -> f.endTime(p -> p.exists(true)).type("client-ship"),
              Stream.concat(Stream.of(cancelledShipJob.getKey()), completedShipJobs()).toArray(Long[]::new)),
          finds("a filter that matches nothing", f -> f.type("client-charge").state(JobState.COMPLETED))),
          this::search);
    }
  }

  @Nested
  class Statistics {

    /** Element id to its counts: active, canceled, incidents, completed. */
    private Map<String, List<Long>> counts(List<ProcessElementStatistics> statistics) {
      Map<String, List<Long>> counts = new java.util.TreeMap<>();
      statistics.forEach(element -> counts.put(element.getElementId(),
          List.of(element.getActive(), element.getCanceled(), element.getIncidents(), element.getCompleted())));
      return counts;
    }

    @Test
    void perElementCountsOfADefinitionAreWhatTheRunsDid() {
      var statistics = client.newProcessDefinitionElementStatisticsRequest(orderDefinition).send().join();

      assertThat(counts(statistics)).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of(
          "received", List.of(0L, 0L, 0L, 3L), "prepare", List.of(0L, 0L, 0L, 3L),
          "ship", List.of(1L, 1L, 0L, 1L), "shipped", List.of(0L, 0L, 0L, 1L))));
    }

    @Test
    void perElementCountsOfADefinitionNarrowedToOneInstance() {
      var statistics = client.newProcessDefinitionElementStatisticsRequest(orderDefinition)
          .filter(f -> f.processInstanceKey(orders.get(1))).send().join();

      assertThat(counts(statistics)).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of(
          "received", List.of(0L, 0L, 0L, 1L), "prepare", List.of(0L, 0L, 0L, 1L), "ship", List.of(1L, 0L, 0L, 0L))));
    }

    @Test
    void perElementCountsOfAnInstanceWithAnIncident() {
      var statistics = client.newProcessInstanceElementStatisticsRequest(fragile).send().join();

      assertThat(counts(statistics)).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of(
          "begin", List.of(0L, 0L, 0L, 1L), "charge", List.of(0L, 0L, 1L, 0L))));
    }
  }

  @Nested
  class Cluster {

    /** The node's broker is up (the topology test checks its partitions against the gateway's own answer). */
    @Test
    void theStatusOverRestIsUp() {
      assertThat(client.newStatusRequest().send().join().getStatus()).isEqualTo(StatusResponse.Status.UP);
    }

    /** The oracle is the gateway's own answer over gRPC, not the web app's. */
    @Test
    void theTopologyOverRestIsTheGatewaysOwn() {
      Topology overRest = client.newTopologyRequest().send().join();
      Topology fromTheGateway = client.newTopologyRequest().useGrpc().send().join();

      assertThat(overRest.getClusterSize()).isEqualTo(fromTheGateway.getClusterSize());
      assertThat(overRest.getPartitionsCount()).isEqualTo(fromTheGateway.getPartitionsCount());
      assertThat(overRest.getReplicationFactor()).isEqualTo(fromTheGateway.getReplicationFactor());
      assertThat(overRest.getGatewayVersion()).isEqualTo(fromTheGateway.getGatewayVersion());
      assertThat(overRest.getBrokers()).hasSameSizeAs(fromTheGateway.getBrokers()).hasSize(1);
      var broker = overRest.getBrokers().getFirst();
      var expected = fromTheGateway.getBrokers().getFirst();
      assertThat(broker.getNodeId()).isEqualTo(expected.getNodeId());
      assertThat(broker.getAddress()).isEqualTo(expected.getAddress());
      assertThat(broker.getVersion()).isEqualTo(expected.getVersion());
      assertThat(broker.getPartitions()).hasSize(fromTheGateway.getPartitionsCount())
          .allSatisfy(partition -> {
            assertThat(partition.getRole()).isEqualTo(PartitionBrokerRole.LEADER);
            assertThat(partition.getHealth()).isEqualTo(PartitionBrokerHealth.HEALTHY);
          });
    }
  }
}
