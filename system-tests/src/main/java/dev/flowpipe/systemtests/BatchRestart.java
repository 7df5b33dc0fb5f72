package dev.flowpipe.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.ZeebeFuture;
import io.camunda.zeebe.client.api.command.ClientStatusException;
import io.camunda.zeebe.client.api.response.ProcessInstanceEvent;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import dev.flowpipe.testsupport.NodeProcess;

/**
 * {@code benchmarks/run batch-restart}: a batch cancel through the REST API (a user with the write role, by filter) of
 * instances waiting at a service task no worker takes, on a node process that is stopped with SIGTERM once about a
 * third of the items is done and killed with SIGKILL at about two thirds, restarted on its data each time. The batch
 * must go on by itself; the engine's own records ({@link RecordFileExporter}, read by {@link EngineCancellations}, not
 * the read model) must show each instance cancelled exactly once; the batch's progress endpoint must report every item
 * completed, none failed. {@code BatchCancelAcrossRestartsTest} runs it small.
 */
public final class BatchRestart {

  private static final String PROCESS = "batch-restart";
  private static final int CREATES_IN_FLIGHT = 10;
  private static final Duration WAIT = Duration.ofSeconds(120);

  /**
   * What a run did and saw.
   *
   * @param doneAtSigterm items no longer active when the node was sent SIGTERM
   * @param doneAtSigkill the same at SIGKILL
   * @param restartSeconds how long each restart took until the node was ready
   * @param batchSeconds from the batch's start to its end, the two restarts included
   * @param progress the batch as its progress endpoint answers at the end
   * @param itemsCompleted the batch's items in state COMPLETED, as its item search answers
   * @param commandsSentAgain CANCEL commands the engine rejected: sent again after a stop for what it had done
   * @param violations instances not cancelled exactly once by the engine's records (at most 20 named)
   * @param changes the migration and modification batches started just before the SIGKILL; null where none ran
   * @param auditViolations what is wrong with the audit log: every batch must have one entry across the stops, and
   *     the log nothing more ({@link BatchAuditEntries})
   */
  public record Report(int instances, int parallelism, long doneAtSigterm, long doneAtSigkill, List<Double> restartSeconds,
      double batchSeconds, JsonNode progress, long itemsCompleted, int commandsSentAgain, List<String> violations,
      Changes changes, List<String> auditViolations) {

    public boolean passed() {
      return "COMPLETED".equals(progress.path("state").asText())
          && progress.path("operationsCompletedCount").asInt() == instances
          && progress.path("operationsFailedCount").asInt() == 0 && itemsCompleted == instances
          && violations.isEmpty() && doneAtSigkill < instances && auditViolations.isEmpty()
          && (changes == null || changes.passed());
    }
  }

  /**
   * The migration and the modification batch of the run, each over {@code instances}, started at once just before
   * the SIGKILL.
   *
   * @param processedBeforeSigkill items of both batches processed before the kill (by their processed dates, read
   *     after the restart): below {@code 2 x instances} where the kill came before the batches' end
   * @param migration the migration batch as its endpoint answers at the end
   * @param modification the modification batch likewise
   * @param commandsSentAgain migration and modification commands the engine rejected
   * @param violations instances not migrated, or modified, exactly once by the engine's records (at most 20 named)
   */
  public record Changes(int instances, long processedBeforeSigkill, JsonNode migration, JsonNode modification,
      int commandsSentAgain, List<String> violations) {

    boolean passed() {
      return completed(migration) && completed(modification) && violations.isEmpty()
          && processedBeforeSigkill < 2L * instances;
    }

    private boolean completed(JsonNode batch) {
      return "COMPLETED".equals(batch.path("state").asText())
          && batch.path("operationsCompletedCount").asInt() == instances
          && batch.path("operationsFailedCount").asInt() == 0;
    }
  }

  private BatchRestart() {}

  /**
   * The batch node's arguments: flow control off, the engine's records recorded to {@code records}, the batch settings
   * and a reader and an operator; shared by {@link BatchChangeRestart}.
   */
  static List<String> nodeArguments(Path records, int parallelism) {
    return List.of(
        // a fresh node under a burst of creations on busy cores refuses some (RESOURCE_EXHAUSTED): not the subject
        "--flowpipe.flow-control.enabled=false",
        "--flowpipe.broker.additional-exporters.recorder.class-name=" + RecordFileExporter.class.getName(),
        "--flowpipe.broker.additional-exporters.recorder.args." + RecordFileExporter.DIRECTORY + "=" + records,
        "--flowpipe.webapp.operations.batch-parallelism=" + parallelism,
        // the restarted node takes its batch up once the lease the stopped one left has expired: 3 s, not 15 s
        "--flowpipe.webapp.operations.batch-lease-expiry=3s",
        "--flowpipe.webapp.security.basic-auth=true",
        "--flowpipe.webapp.security.users[0].username=reader",
        "--flowpipe.webapp.security.users[0].password=r",
        "--flowpipe.webapp.security.users[1].username=operator",
        "--flowpipe.webapp.security.users[1].password=o",
        "--flowpipe.webapp.security.users[1].roles=write");
  }

  public static Report run(Path root, Path work, int instances, int parallelism, Consumer<String> log) throws Exception {
    return run(root, work, instances, parallelism, 0, log);
  }

  /**
   * The run with, where {@code changeInstances > 0}, a batch migration and a batch modification of that many instances
   * each ({@link ChangeBatches}) started at once after the SIGTERM's restart, once the cancel is two thirds done, and
   * the node killed as soon as both have answered: they go on after the restart beside the cancel.
   */
  public static Report run(Path root, Path work, int instances, int parallelism, int changeInstances,
      Consumer<String> log) throws Exception {
    Path records = work.resolve("records");
    List<String> arguments = nodeArguments(records, parallelism);
    String classpath = root.resolve("system-tests/target/classes").toString();
    Path workDir = work.resolve("node");
    long started = System.nanoTime();
    Consumer<String> timed = event -> log.accept(String.format("%6.1f s  %s", seconds(started), event));

    NodeProcess node = NodeProcess.start(root, workDir, arguments, classpath);
    try {
      List<Long> keys = createWaitingInstances(node, PROCESS, instances);
      WebApiAs reader = new WebApiAs(node.httpPort(), "reader", "r");
      awaitUntil("the read model shows the instances active", () -> reader.search("process-instances",
          "{\"filter\": {\"processDefinitionId\": \"" + PROCESS + "\", \"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}}")
          .path("page").path("totalItems").asLong() == instances);
      timed.accept(instances + " instances created and searchable");
      ChangeBatches changes = changeInstances > 0 ? ChangeBatches.prepare(node, changeInstances) : null;
      if (changes != null) {
        timed.accept(2 * changeInstances + " instances to migrate and modify created and searchable");
      }

      JsonNode batch = new WebApiAs(node.httpPort(), "operator", "o").expect(200, "POST",
          "/v2/process-instances/cancellation", "{\"filter\": {\"processDefinitionId\": \"" + PROCESS + "\"}}");
      if (batch.path("operationsTotalCount").asInt() != instances) {
        throw new IllegalStateException("the batch found " + batch + ", expected " + instances + " items");
      }
      String key = batch.path("batchOperationKey").asText();
      long batchStarted = System.nanoTime();

      List<Double> restarts = new ArrayList<>();
      long doneAtSigterm = awaitItemsDone(node, key, instances, instances / 3);
      node.terminate();
      timed.accept("SIGTERM at " + doneAtSigterm + " items done");
      node = restart(root, workDir, node, arguments, classpath, restarts, timed);

      long doneAtSigkill = awaitItemsDone(node, key, instances, instances * 2 / 3);
      ChangeBatches.Started changing = changes == null ? null
          : changes.start(new WebApiAs(node.httpPort(), "operator", "o"));
      node.kill();
      Instant killed = Instant.now();
      timed.accept("SIGKILL at " + doneAtSigkill + " items done" + (changing == null ? ""
          : ", just after the migration and modification batches started"));
      node = restart(root, workDir, node, arguments, classpath, restarts, timed);

      WebApiAs afterRestarts = new WebApiAs(node.httpPort(), "reader", "r");
      awaitUntil("the batch ends by itself", () ->
          !"ACTIVE".equals(afterRestarts.get("/v2/batch-operations/" + key).path("state").asText()));
      double batchSeconds = seconds(batchStarted);
      timed.accept("batch ended");
      JsonNode progress = afterRestarts.get("/v2/batch-operations/" + key);
      long completed = items(afterRestarts, key, "COMPLETED");
      Map<String, String> batches = new LinkedHashMap<>(Map.of(key, "CANCEL_PROCESS_INSTANCE"));
      JsonNode migration = null;
      JsonNode modification = null;
      long processedBeforeSigkill = 0;
      if (changing != null) {
        for (String change : changing.types().keySet()) {
          awaitUntil("batch " + change + " ends by itself", () ->
              !"ACTIVE".equals(afterRestarts.get("/v2/batch-operations/" + change).path("state").asText()));
          processedBeforeSigkill += ChangeBatches.processedBefore(afterRestarts, change, killed);
        }
        timed.accept("migration and modification batches ended");
        migration = afterRestarts.get("/v2/batch-operations/" + changing.migration());
        modification = afterRestarts.get("/v2/batch-operations/" + changing.modification());
        batches.putAll(changing.types());
      }
      List<String> audit = BatchAuditEntries.violations(afterRestarts, batches, "operator");
      node.terminate(); // the recorder syncs its file on a clean stop

      EngineCancellations engine = EngineCancellations.read(records);
      List<String> violations = new ArrayList<>();
      for (long instance : keys) {
        EngineCancellations.Counts counts = engine.of(instance);
        if (counts.terminations() != 1 || counts.accepted() != 1) {
          violations.add("instance " + instance + ": " + counts.terminations() + " ELEMENT_TERMINATED, "
              + counts.accepted() + " CANCEL accepted");
        }
      }
      Changes changed = null;
      if (changes != null) {
        EngineInstanceChanges engineChanges = EngineInstanceChanges.read(records);
        List<String> changeViolations = changes.violations(engineChanges);
        changed = new Changes(changeInstances, processedBeforeSigkill, migration, modification,
            changes.rejected(engineChanges), changeViolations.subList(0, Math.min(20, changeViolations.size())));
      }
      Report report = new Report(instances, parallelism, doneAtSigterm, doneAtSigkill, restarts, batchSeconds,
          progress, completed, engine.rejections(), violations.subList(0, Math.min(20, violations.size())), changed,
          audit);
      timed.accept("checked: " + report);
      return report;
    } finally {
      node.close();
    }
  }

  /** Deploys {@code process} (a service task no worker takes) and creates {@code count} instances of it. */
  static List<Long> createWaitingInstances(NodeProcess node, String process, int count) throws InterruptedException {
    try (ZeebeClient client = ZeebeClient.newClientBuilder().grpcAddress(node.gateway()).usePlaintext()
        .defaultRequestTimeout(Duration.ofSeconds(20)).build()) {
      client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess(process).startEvent()
          .serviceTask("wait", t -> t.zeebeJobType("nobody")).endEvent().done(), process + ".bpmn").send().join();
      return createInstances(client, process, count);
    }
  }

  /** Creates {@code count} instances of the latest version of {@code process}, a few in flight at a time. */
  static List<Long> createInstances(ZeebeClient client, String process, int count) throws InterruptedException {
    List<Long> keys = new ArrayList<>();
    for (int from = 0; from < count; from += CREATES_IN_FLIGHT) {
      List<ZeebeFuture<ProcessInstanceEvent>> window = new ArrayList<>();
      for (int i = from; i < Math.min(count, from + CREATES_IN_FLIGHT); i++) {
        window.add(client.newCreateInstanceCommand().bpmnProcessId(process).latestVersion().send());
      }
      for (ZeebeFuture<ProcessInstanceEvent> created : window) {
        keys.add(createdOrSentAgain(client, process, created));
      }
    }
    return keys;
  }

  /**
   * The key of a created instance. The broker's request limiter refuses creations on busy cores
   * (RESOURCE_EXHAUSTED): a refused command was not carried out, so it is sent again, as the engine's answer asks;
   * creating the instances is the set-up here, not what is measured.
   */
  private static long createdOrSentAgain(ZeebeClient client, String process, ZeebeFuture<ProcessInstanceEvent> created)
      throws InterruptedException {
    ZeebeFuture<ProcessInstanceEvent> attempt = created;
    while (true) {
      try {
        return attempt.join().getProcessInstanceKey();
      } catch (ClientStatusException e) {
        if (e.getStatusCode() != Status.Code.RESOURCE_EXHAUSTED) {
          throw e;
        }
        TimeUnit.MILLISECONDS.sleep(100);
        attempt = client.newCreateInstanceCommand().bpmnProcessId(process).latestVersion().send();
      }
    }
  }

  private static NodeProcess restart(Path root, Path workDir, NodeProcess stopped, List<String> arguments,
      String classpath, List<Double> restarts, Consumer<String> timed) throws Exception {
    long start = System.nanoTime();
    NodeProcess node = NodeProcess.start(root, workDir, stopped.ports(), arguments, classpath);
    restarts.add(seconds(start));
    timed.accept("restarted in " + String.format("%.1f s", seconds(start)));
    return node;
  }

  /** Waits until at least {@code enough} items are no longer active; returns how many are then. */
  private static long awaitItemsDone(NodeProcess node, String key, int total, long enough) throws Exception {
    WebApiAs reader = new WebApiAs(node.httpPort(), "reader", "r");
    long[] done = new long[1];
    awaitUntil("batch items done", () -> (done[0] = total - items(reader, key, "ACTIVE")) >= enough);
    return done[0];
  }

  static long items(WebApiAs api, String key, String state) throws Exception {
    return api.search("batch-operation-items", "{\"filter\": {\"batchOperationKey\": \"" + key
        + "\", \"state\": \"" + state + "\"}, \"page\": {\"limit\": 0}}").path("page").path("totalItems").asLong();
  }

  interface Condition {
    boolean holds() throws Exception;
  }

  /** Polls {@code condition} every 50 ms for up to two minutes; fails naming {@code what}. */
  static void awaitUntil(String what, Condition condition) throws Exception {
    awaitUntil(what, WAIT, condition);
  }

  /** Polls {@code condition} every 50 ms for up to {@code wait}; fails naming {@code what}. */
  static void awaitUntil(String what, Duration wait, Condition condition) throws Exception {
    long deadline = System.nanoTime() + wait.toNanos();
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not within " + wait + ": " + what);
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }
}
