package dev.flowpipe.systemtests;

import static dev.flowpipe.systemtests.BatchRestart.awaitUntil;
import static dev.flowpipe.systemtests.BatchRestart.items;
import static dev.flowpipe.systemtests.BatchRestart.seconds;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.testsupport.NodeProcess;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code benchmarks/run batch-change-restart}: a batch migration (version 1 to 2, one element mapping) and a batch
 * modification (a token moved past a step) through the REST API in the 8.8 shapes, each over {@code instances}
 * waiting instances, on a node process killed with SIGKILL once about half of the items of both is done and restarted
 * on its data. The batches must go on by themselves; the engine's own records ({@link RecordFileExporter}, read by
 * {@link EngineInstanceChanges}, not the read model) must show each instance migrated, or modified, exactly once; the
 * batches' progress must report every item completed. {@code BatchChangesAcrossARestartTest} runs it small.
 */
public final class BatchChangeRestart {

  private static final String MIGRATING = "batch-migrating";
  private static final String MOVING = "batch-moving";

  /**
   * What a run did and saw.
   *
   * @param doneAtSigkill items of both batches no longer active when the node was killed
   * @param migration the migration batch as its endpoint answers at the end
   * @param modification the modification batch likewise
   * @param violations instances not migrated, or modified, exactly once by the engine's records (at most 20 named)
   * @param commandsSentAgain commands the engine rejected (sent again after the kill for what it had done)
   */
  public record Report(int instances, long doneAtSigkill, double restartSeconds, double batchSeconds,
      JsonNode migration, JsonNode modification, int commandsSentAgain, List<String> violations) {

    public boolean passed() {
      return completed(migration) && completed(modification) && violations.isEmpty()
          && doneAtSigkill < 2L * instances;
    }

    private boolean completed(JsonNode batch) {
      return "COMPLETED".equals(batch.path("state").asText())
          && batch.path("operationsCompletedCount").asInt() == instances
          && batch.path("operationsFailedCount").asInt() == 0;
    }

  }

  private BatchChangeRestart() {}

  public static Report run(Path root, Path work, int instances, int parallelism, Consumer<String> log)
      throws Exception {
    Path records = work.resolve("records");
    List<String> arguments = BatchRestart.nodeArguments(records, parallelism);
    String classpath = root.resolve("system-tests/target/classes").toString();
    Path workDir = work.resolve("node");
    long started = System.nanoTime();
    Consumer<String> timed = event -> log.accept(String.format("%6.1f s  %s", seconds(started), event));

    NodeProcess node = NodeProcess.start(root, workDir, arguments, classpath);
    try {
      long version2;
      List<Long> migrating;
      List<Long> moving;
      try (ZeebeClient client = ZeebeClient.newClientBuilder().grpcAddress(node.gateway()).usePlaintext()
          .defaultRequestTimeout(Duration.ofSeconds(20)).build()) {
        client.newDeployResourceCommand().addProcessModel(process(MIGRATING, "a"), MIGRATING + ".bpmn")
            .addProcessModel(twoSteps(), MOVING + ".bpmn").send().join();
        migrating = BatchRestart.createInstances(client, MIGRATING, instances);
        moving = BatchRestart.createInstances(client, MOVING, instances);
        version2 = client.newDeployResourceCommand().addProcessModel(process(MIGRATING, "a2"), MIGRATING + ".bpmn")
            .send().join().getProcesses().getFirst().getProcessDefinitionKey();
      }
      WebApiAs reader = new WebApiAs(node.httpPort(), "reader", "r");
      for (String[] waiting : List.of(new String[] {MIGRATING, "a"}, new String[] {MOVING, "first"})) {
        awaitUntil("the read model shows the " + waiting[0] + " instances at their task", () -> reader.search(
            "element-instances", "{\"filter\": {\"processDefinitionId\": \"" + waiting[0] + "\", \"elementId\": \""
                + waiting[1] + "\", \"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}}").path("page")
            .path("totalItems").asLong() == instances);
      }
      timed.accept(2 * instances + " instances created and searchable");

      WebApiAs operator = new WebApiAs(node.httpPort(), "operator", "o");
      String migration = operator.expect(200, "POST", "/v2/process-instances/migration", "{\"filter\":"
          + " {\"processDefinitionId\": \"" + MIGRATING + "\"}, \"migrationPlan\": {\"targetProcessDefinitionKey\": \""
          + version2 + "\", \"mappingInstructions\": [{\"sourceElementId\": \"a\", \"targetElementId\": \"a2\"}]}}")
          .path("batchOperationKey").asText();
      String modification = operator.expect(200, "POST", "/v2/process-instances/modification", "{\"filter\":"
          + " {\"processDefinitionId\": \"" + MOVING + "\"}, \"moveInstructions\": [{\"sourceElementId\": \"first\","
          + " \"targetElementId\": \"second\"}]}").path("batchOperationKey").asText();
      long batchStarted = System.nanoTime();

      long[] done = new long[1];
      awaitUntil("half of the items done", () -> (done[0] = 2L * instances - items(reader, migration, "ACTIVE")
          - items(reader, modification, "ACTIVE")) >= instances);
      node.kill();
      timed.accept("SIGKILL at " + done[0] + " of " + 2 * instances + " items done");
      long restart = System.nanoTime();
      node = NodeProcess.start(root, workDir, node.ports(), arguments, classpath);
      double restartSeconds = seconds(restart);
      timed.accept(String.format("restarted in %.1f s", restartSeconds));

      WebApiAs after = new WebApiAs(node.httpPort(), "reader", "r");
      for (String key : List.of(migration, modification)) {
        awaitUntil("batch " + key + " ends by itself", () ->
            !"ACTIVE".equals(after.get("/v2/batch-operations/" + key).path("state").asText()));
      }
      double batchSeconds = seconds(batchStarted);
      JsonNode migrationBatch = after.get("/v2/batch-operations/" + migration);
      JsonNode modificationBatch = after.get("/v2/batch-operations/" + modification);
      timed.accept("batches ended");
      node.terminate(); // the recorder syncs its file on a clean stop

      EngineInstanceChanges engine = EngineInstanceChanges.read(records);
      List<String> violations = new ArrayList<>();
      int rejected = 0;
      for (long instance : migrating) {
        EngineInstanceChanges.Counts counts = engine.of(instance);
        rejected += counts.migrationsRejected();
        if (counts.migrated() != 1) {
          violations.add("instance " + instance + ": " + counts.migrated() + " MIGRATED");
        }
      }
      for (long instance : moving) {
        EngineInstanceChanges.Counts counts = engine.of(instance);
        rejected += counts.modificationsRejected();
        if (counts.modified() != 1) {
          violations.add("instance " + instance + ": " + counts.modified() + " MODIFIED");
        }
      }
      Report report = new Report(instances, done[0], restartSeconds, batchSeconds, migrationBatch, modificationBatch,
          rejected, violations.subList(0, Math.min(20, violations.size())));
      timed.accept("checked: " + report);
      return report;
    } finally {
      node.close();
    }
  }

  private static BpmnModelInstance process(String id, String task) {
    return Bpmn.createExecutableProcess(id).startEvent("start").serviceTask(task, t -> t.zeebeJobType("nobody"))
        .endEvent().done();
  }

  private static BpmnModelInstance twoSteps() {
    return Bpmn.createExecutableProcess(MOVING).startEvent().serviceTask("first", t -> t.zeebeJobType("nobody"))
        .serviceTask("second", t -> t.zeebeJobType("nobody")).endEvent().done();
  }
}
