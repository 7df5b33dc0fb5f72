package dev.flowpipe.systemtests;

import static dev.flowpipe.systemtests.BatchRestart.awaitUntil;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.testsupport.NodeProcess;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A batch migration (version 1 to 2, one element mapping) and a batch modification (a token moved past a step) through
 * the REST API in the 8.8 shapes, each over instances waiting at a service task no worker takes, and what the engine's
 * own records ({@link EngineInstanceChanges}) say of them: each instance migrated, or modified, exactly once. Run
 * across a SIGKILL by {@link BatchChangeRestart} (the 1,000-instance run) and {@link BatchRestart} (the suite's short
 * version, beside its batch cancel).
 *
 * @param version2 the migration's target definition
 * @param migrating the instances of version 1 waiting at {@code a}
 * @param moving the instances waiting at {@code first}, to be moved to {@code second}
 */
record ChangeBatches(long version2, List<Long> migrating, List<Long> moving) {

  static final String MIGRATING = "batch-migrating";
  static final String MOVING = "batch-moving";

  /** The two batches as started: their keys. */
  record Started(String migration, String modification) {

    /** Batch key to batch type, as the audit log names them. */
    Map<String, String> types() {
      return Map.of(migration, "MIGRATE_PROCESS_INSTANCE", modification, "MODIFY_PROCESS_INSTANCE");
    }
  }

  /**
   * Deploys version 1 of the migrating process and the moving one, creates {@code instances} of each, deploys version
   * 2 and waits until the read model shows every instance at its task (the batches find their items there).
   */
  static ChangeBatches prepare(NodeProcess node, int instances) throws Exception {
    ChangeBatches prepared;
    try (ZeebeClient client = ZeebeClient.newClientBuilder().grpcAddress(node.gateway()).usePlaintext()
        .defaultRequestTimeout(Duration.ofSeconds(20)).build()) {
      client.newDeployResourceCommand().addProcessModel(oneStep("a"), MIGRATING + ".bpmn")
          .addProcessModel(twoSteps(), MOVING + ".bpmn").send().join();
      List<Long> migrating = BatchRestart.createInstances(client, MIGRATING, instances);
      List<Long> moving = BatchRestart.createInstances(client, MOVING, instances);
      long version2 = client.newDeployResourceCommand().addProcessModel(oneStep("a2"), MIGRATING + ".bpmn")
          .send().join().getProcesses().getFirst().getProcessDefinitionKey();
      prepared = new ChangeBatches(version2, migrating, moving);
    }
    WebApiAs reader = new WebApiAs(node.httpPort(), "reader", "r");
    for (String[] waiting : List.of(new String[] {MIGRATING, "a"}, new String[] {MOVING, "first"})) {
      awaitUntil("the read model shows the " + waiting[0] + " instances at their task", () -> reader.search(
          "element-instances", "{\"filter\": {\"processDefinitionId\": \"" + waiting[0] + "\", \"elementId\": \""
              + waiting[1] + "\", \"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}}").path("page")
          .path("totalItems").asLong() == instances);
    }
    return prepared;
  }

  /**
   * Starts both batches as the operator, the two requests at once (so that neither has run long when both have
   * answered): {@code a} to {@code a2} on version 2, {@code first} to {@code second}.
   */
  Started start(WebApiAs operator) throws Exception {
    try (ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<JsonNode> migration = requests.submit(() -> operator.expect(200, "POST",
          "/v2/process-instances/migration", "{\"filter\": {\"processDefinitionId\": \"" + MIGRATING + "\"},"
              + " \"migrationPlan\": {\"targetProcessDefinitionKey\": \"" + version2 + "\", \"mappingInstructions\":"
              + " [{\"sourceElementId\": \"a\", \"targetElementId\": \"a2\"}]}}"));
      Future<JsonNode> modification = requests.submit(() -> operator.expect(200, "POST",
          "/v2/process-instances/modification", "{\"filter\": {\"processDefinitionId\": \"" + MOVING + "\"},"
              + " \"moveInstructions\": [{\"sourceElementId\": \"first\", \"targetElementId\": \"second\"}]}"));
      return new Started(migration.get().path("batchOperationKey").asText(),
          modification.get().path("batchOperationKey").asText());
    }
  }

  /** Instances not migrated, or modified, exactly once by the engine's records. */
  List<String> violations(EngineInstanceChanges engine) {
    List<String> violations = new ArrayList<>();
    for (long instance : migrating) {
      int migrated = engine.of(instance).migrated();
      if (migrated != 1) {
        violations.add("instance " + instance + ": " + migrated + " MIGRATED");
      }
    }
    for (long instance : moving) {
      int modified = engine.of(instance).modified();
      if (modified != 1) {
        violations.add("instance " + instance + ": " + modified + " MODIFIED");
      }
    }
    return violations;
  }

  /** Migration and modification commands the engine rejected (sent again after a stop for what it had done). */
  int rejected(EngineInstanceChanges engine) {
    return migrating.stream().mapToInt(instance -> engine.of(instance).migrationsRejected()).sum()
        + moving.stream().mapToInt(instance -> engine.of(instance).modificationsRejected()).sum();
  }

  /**
   * A batch's items processed before {@code moment} (by their {@code processedDate}, the web app's clock on this
   * machine): what it had done when the node was killed at that moment, read after the restart.
   */
  static long processedBefore(WebApiAs reader, String batchKey, Instant moment) throws Exception {
    long before = 0;
    for (int from = 0; ; from += 1000) {
      JsonNode items = reader.search("batch-operation-items", "{\"filter\": {\"batchOperationKey\": \"" + batchKey
          + "\"}, \"page\": {\"from\": " + from + ", \"limit\": 1000}}").path("items");
      for (JsonNode item : items) {
        String processed = item.path("processedDate").asText(null);
        if (processed != null && Instant.parse(processed).isBefore(moment)) {
          before++;
        }
      }
      if (items.size() < 1000) {
        return before;
      }
    }
  }

  private static BpmnModelInstance oneStep(String task) {
    return Bpmn.createExecutableProcess(MIGRATING).startEvent("start").serviceTask(task, t -> t.zeebeJobType("nobody"))
        .endEvent().done();
  }

  private static BpmnModelInstance twoSteps() {
    return Bpmn.createExecutableProcess(MOVING).startEvent().serviceTask("first", t -> t.zeebeJobType("nobody"))
        .serviceTask("second", t -> t.zeebeJobType("nobody")).endEvent().done();
  }
}
