package dev.flowpipe.clientcompat;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.testsupport.LiteralExpressionDmn;
import dev.flowpipe.testsupport.v2spec.V2SpecChecks;
import dev.flowpipe.testsupport.v2spec.V2SpecRun;
import dev.flowpipe.testsupport.v2spec.V2SpecTable;
import io.camunda.client.CamundaClient;
import io.camunda.client.api.response.ActivatedJob;
import io.camunda.client.api.response.DeploymentEvent;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The checks the web app's {@code V2SpecConformanceTest} generates from the v2 spec tables (test-support's
 * {@code v2spec}), run against the read model a real node wrote from real BPMN and DMN runs: every field's presence and
 * type, every filter with every operator, every enum value, every sort, the page modes, the limit and the cursor format.
 *
 * <p>The runs ({@code conf-main}: a business rule task evaluating test-support's {@code dish.dmn}, a service task, a
 * call activity of {@code conf-refund} with a service task of its own, a message catch event), one instance each:
 * completed (A), failed at the decision (B: an incident and a FAILED decision instance), failed at its job without
 * retries (C: a job incident), cancelled at its job (D), waiting for its message (E: an open subscription), waiting in
 * its called instance (F: an activated job), failed in its called instance (G: an incident of {@code conf-refund} with
 * C's message), an error thrown at its job that nothing catches (I: a job with an error code, an incident), completed
 * like A (K, L); then {@code conf-main} version 2 and one instance of it (H: a job not activated). Two more DRDs of a
 * decision each, one evaluated standalone, as is "dish". So every entity holds at least three items, and every
 * statistics answer two, for the page checks. The checks cover every item of each entity, so this class runs in a
 * surefire execution of its own (the module's POM), on a node that holds only its runs, whatever order the other
 * classes run in. Its known
 * differences are the web app test's, adjusted by {@code known-differences-on-real-runs.yaml}.
 */
@ExtendWith(SharedNode.class)
class V2SpecConformanceOnNodeTest {

  private static final String USER = SharedNode.READER_WRITER;
  private static final String PASSWORD = SharedNode.READER_WRITER_PASSWORD;
  private static final String ERROR = "conf: out of stock";

  private static final BpmnModelInstance MAIN = main("c1", "Done");
  private static final BpmnModelInstance MAIN_V2 = main("c2", "Done, version 2");

  private static final BpmnModelInstance REFUND = Bpmn.createExecutableProcess("conf-refund").name("Conformance refund")
      .startEvent("begin").serviceTask("pay", t -> t.zeebeJobType("conf-pay")).endEvent("paid-back").done();

  private static BpmnModelInstance main(String versionTag, String endName) {
    return Bpmn.createExecutableProcess("conf-main").name("Conformance main").versionTag(versionTag)
        .startEvent("placed").name("Order placed")
        .businessRuleTask("choose", t -> t.name("Choose dish").zeebeCalledDecisionId("dish")
            .zeebeResultVariable("meal"))
        .serviceTask("ship", t -> t.name("Ship").zeebeJobType("conf-ship").zeebeTaskHeader("priority", "high"))
        .callActivity("refund", c -> c.zeebeProcessId("conf-refund"))
        .intermediateCatchEvent("paid", e -> e.message(m -> m.name("conf-paid")
            .zeebeCorrelationKeyExpression("orderId")))
        .endEvent("done").name(endName).done();
  }

  /** A DRD of one literal-expression decision. */
  private static String dmn(String id) {
    return LiteralExpressionDmn.of(id, "DRD " + id, "Decision " + id, "guests * 2");
  }

  private static NodeInChildProcess node;
  private static CamundaClient client;
  private static DeploymentEvent deployment;
  private static final Map<String, Long> instances = new LinkedHashMap<>();
  private static V2SpecRun run;

  @BeforeAll
  static void runProcessesAndDecisionsOnANode(NodeInChildProcess shared) {
    node = shared;
    client = node.client(USER, PASSWORD, true);
    deployment = client.newDeployResourceCommand().useGrpc().addResourceFromClasspath("flowpipe/dmn/dish.dmn")
        .addResourceStringUtf8(dmn("conf-tax"), "conf-tax.dmn").addResourceStringUtf8(dmn("conf-fee"), "conf-fee.dmn")
        .addProcessModel(MAIN, "conf-main.bpmn").addProcessModel(REFUND, "conf-refund.bpmn").send().join();
    for (String name : List.of("A", "B", "C", "D", "E", "F", "G", "I", "K", "L")) {
      // B's 200 guests match two rules of the UNIQUE table: the evaluation fails at "dish"
      instances.put(name, create(name, name.equals("B") ? 200 : 4));
    }
    activate("conf-ship", 9).forEach((instance, job) -> {
      switch (nameOf(instance)) {
        case "C" -> client.newFailCommand(job.getKey()).useGrpc().retries(0).errorMessage(ERROR).send().join();
        case "D" -> { } // cancelled below, with its job activated
        case "I" -> client.newThrowErrorCommand(job.getKey()).useGrpc().errorCode("conf-no-stock")
            .errorMessage("conf: no stock to ship").send().join();
        default -> client.newCompleteCommand(job.getKey()).useGrpc().send().join();
      }
    });
    client.newCancelInstanceCommand(instances.get("D")).send().join();
    activate("conf-pay", 6).forEach((child, job) -> {
      switch (nameOf(parentOf(child))) {
        case "F" -> { } // left activated: F waits in its called instance
        case "G" -> client.newFailCommand(job.getKey()).useGrpc().retries(0).errorMessage(ERROR).send().join();
        default -> client.newCompleteCommand(job.getKey()).useGrpc().send().join();
      }
    });
    await("A's, E's, K's and L's subscriptions open").atMost(Duration.ofSeconds(60)).until(() ->
        client.newMessageSubscriptionSearchRequest().filter(f -> f.messageName("conf-paid")).send().join().items()
            .size() == 4);
    for (String name : List.of("A", "K", "L")) {
      client.newPublishMessageCommand().messageName("conf-paid").correlationKey("conf-" + name).send().join();
    }
    client.newDeployResourceCommand().useGrpc().addProcessModel(MAIN_V2, "conf-main.bpmn").send().join();
    instances.put("H", create("H", 4));
    try (CamundaClient overGrpc = node.client(USER, PASSWORD, false)) {
      overGrpc.newEvaluateDecisionCommand().decisionId("dish").variables(Map.of("temperature", 20, "guests", 4))
          .send().join();
      overGrpc.newEvaluateDecisionCommand().decisionId("conf-tax").variables(Map.of("guests", 3)).send().join();
    }
    await("the runs' last effects in the read model").atMost(Duration.ofSeconds(90)).until(() ->
        client.newProcessInstanceSearchRequest().filter(f -> f.processDefinitionId("conf-main")).send().join()
            .items().stream().filter(i -> i.getEndDate() != null).count() == 4 // A, D, K, L
            && client.newIncidentSearchRequest().filter(f -> f.processDefinitionId("conf-main")).send().join().items()
                .size() == 3 // B, C, I
            && client.newIncidentSearchRequest().filter(f -> f.processDefinitionId("conf-refund")).send().join()
                .items().size() == 1 // G's called instance
            && client.newCorrelatedMessageSubscriptionSearchRequest().filter(f -> f.processDefinitionId("conf-main"))
                .send().join().items().size() == 3
            && client.newProcessInstanceSearchRequest().filter(f -> f.processInstanceKey(instances.get("H"))).send()
                .join().items().size() == 1
            && client.newDecisionInstanceSearchRequest().filter(f -> f.decisionDefinitionId("conf-tax")).send().join()
                .items().size() == 1);

    run = new V2SpecRun(new NodeApi(), filterSamples(), placeholders(), V2SpecTable.knownDifferencesOnRealRuns(),
        "known-differences-on-real-runs.yaml");
  }

  @AfterAll
  static void stop() {
    if (run != null) {
      System.out.print(run.summary("a node's real runs"));
    }
    if (client != null) {
      client.close();
    }
  }

  @TestFactory
  Stream<DynamicTest> everyCheckTheSpecTablesGiveOnRealRuns() {
    return run.checks().stream().map(check -> DynamicTest.dynamicTest(check.name(), () -> run.run(check)));
  }

  private static long create(String name, int guests) {
    return client.newCreateInstanceCommand().bpmnProcessId("conf-main").latestVersion()
        .variables(Map.of("temperature", 5, "guests", guests, "orderId", "conf-" + name)).send().join()
        .getProcessInstanceKey();
  }

  private static String nameOf(long instance) {
    return instances.entrySet().stream().filter(e -> e.getValue() == instance).map(Map.Entry::getKey).findFirst()
        .orElseThrow(() -> new AssertionError("not an instance of this class: " + instance));
  }

  /** Activates {@code count} jobs of the type, by the instance each belongs to. */
  private static Map<Long, ActivatedJob> activate(String type, int count) {
    Map<Long, ActivatedJob> jobs = new HashMap<>();
    await(count + " " + type + " jobs").atMost(Duration.ofSeconds(60)).until(() -> {
      client.newActivateJobsCommand().useGrpc().jobType(type).maxJobsToActivate(count - jobs.size())
          .workerName("conf-worker").timeout(Duration.ofMinutes(30)).send().join().getJobs()
          .forEach(job -> jobs.put(job.getProcessInstanceKey(), job));
      return jobs.size() == count;
    });
    return jobs;
  }

  private static long parentOf(long child) {
    return await("the parent of " + child).atMost(Duration.ofSeconds(60)).until(() ->
        client.newProcessInstanceSearchRequest().filter(f -> f.processInstanceKey(child)).send().join().items(),
        items -> items.size() == 1 && items.getFirst().getParentProcessInstanceKey() != null)
        .getFirst().getParentProcessInstanceKey();
  }

  /** Values of these runs for filters the answers do not carry (the checks cannot read them from answers). */
  private static Map<String, JsonNode> filterSamples() {
    var dish = deployment.getDecisionRequirements().stream()
        .filter(d -> d.getDmnDecisionRequirementsId().equals("dish-drd")).findFirst().orElseThrow();
    Map<String, JsonNode> samples = new HashMap<>();
    samples.put("process-definitions.isLatestVersion", V2SpecChecks.json("true"));
    samples.put("process-instances.batchOperationId", V2SpecChecks.json("\"1\""));
    samples.put("process-instances.errorMessage", V2SpecChecks.json("\"" + ERROR + "\""));
    samples.put("process-instances.hasRetriesLeft", V2SpecChecks.json("true"));
    samples.put("process-instances.elementInstanceState", V2SpecChecks.json("\"ACTIVE\""));
    samples.put("process-instances.elementId", V2SpecChecks.json("\"ship\""));
    samples.put("process-instances.hasElementInstanceIncident", V2SpecChecks.json("true"));
    samples.put("process-instances.incidentErrorHashCode", V2SpecChecks.json(String.valueOf(ERROR.hashCode())));
    samples.put("element-instances.elementInstanceScopeKey", V2SpecChecks.json("\"" + instances.get("A") + "\""));
    samples.put("jobs.isDenied", V2SpecChecks.json("false"));
    samples.put("jobs.deniedReason", V2SpecChecks.json("\"denied\""));
    samples.put("decision-definitions.isLatestVersion", V2SpecChecks.json("true"));
    samples.put("decision-definitions.decisionRequirementsName", V2SpecChecks.json("\"Dish for the season\""));
    samples.put("decision-definitions.decisionRequirementsVersion",
        V2SpecChecks.json(String.valueOf(dish.getVersion())));
    samples.put("decision-instances.decisionRequirementsKey",
        V2SpecChecks.json("\"" + dish.getDecisionRequirementsKey() + "\""));
    return samples;
  }

  private static Map<String, String> placeholders() {
    long main = deployment.getProcesses().stream().filter(p -> p.getBpmnProcessId().equals("conf-main")).findFirst()
        .orElseThrow().getProcessDefinitionKey();
    return Map.of("processInstanceKey", String.valueOf(instances.get("A")), "processDefinitionKey",
        String.valueOf(main), "processDefinitionId", "conf-main", "errorHashCode", String.valueOf(ERROR.hashCode()));
  }

  /** The node's web app over plain HTTP, with a {@code write} user's basic credentials. */
  private static final class NodeApi implements V2SpecChecks.Api {

    private final HttpClient http = HttpClient.newHttpClient();
    private final String authorization = "Basic "
        + Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));

    @Override
    public V2SpecChecks.Answer post(String path, String json) {
      return send(HttpRequest.newBuilder(URI.create(node.webUrl() + path)).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    @Override
    public V2SpecChecks.Answer get(String path) {
      return send(HttpRequest.newBuilder(URI.create(node.webUrl() + path)).GET());
    }

    private V2SpecChecks.Answer send(HttpRequest.Builder request) {
      try {
        HttpResponse<String> answer = http.send(request.header("Authorization", authorization).build(),
            HttpResponse.BodyHandlers.ofString());
        return new V2SpecChecks.Answer(answer.statusCode(), answer.body());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }
}
