package dev.flowpipe.systemtests;

import static dev.flowpipe.systemtests.BatchRestart.awaitUntil;
import static dev.flowpipe.systemtests.BatchRestart.items;
import static dev.flowpipe.systemtests.BatchRestart.seconds;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.testsupport.NodeProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code benchmarks/run batch-change-restart}: a batch migration (version 1 to 2, one element mapping) and a batch
 * modification (a token moved past a step) through the REST API in the 8.8 shapes, each over {@code instances}
 * waiting instances, on a node process killed with SIGKILL once about half of the items of both is done and restarted
 * on its data. The batches must go on by themselves; the engine's own records ({@link RecordFileExporter}, read by
 * {@link EngineInstanceChanges}, not the read model) must show each instance migrated, or modified, exactly once; the
 * batches' progress must report every item completed; the audit log must hold one entry per batch across the kill
 * ({@link BatchAuditEntries}). The batches are {@link ChangeBatches}; {@code BatchCancelAcrossRestartsTest} runs them
 * small, beside its batch cancel.
 */
public final class BatchChangeRestart {

  /**
   * What a run did and saw.
   *
   * @param doneAtSigkill items of both batches no longer active when the node was killed
   * @param migration the migration batch as its endpoint answers at the end
   * @param modification the modification batch likewise
   * @param violations instances not migrated, or modified, exactly once by the engine's records (at most 20 named)
   * @param commandsSentAgain commands the engine rejected (sent again after the kill for what it had done)
   * @param auditViolations what is wrong with the audit log: each batch must have one entry across the kill, and the
   *     log nothing more ({@link BatchAuditEntries})
   */
  public record Report(int instances, long doneAtSigkill, double restartSeconds, double batchSeconds,
      JsonNode migration, JsonNode modification, int commandsSentAgain, List<String> violations,
      List<String> auditViolations) {

    public boolean passed() {
      return completed(migration) && completed(modification) && violations.isEmpty() && auditViolations.isEmpty()
          && doneAtSigkill < 2L * instances;
    }

    private boolean completed(JsonNode batch) {
      return "COMPLETED".equals(batch.path("state").asText())
          && batch.path("operationsCompletedCount").asInt() == instances
          && batch.path("operationsFailedCount").asInt() == 0;
    }

  }

  private BatchChangeRestart() {}

  /** Two minutes and a second per 2 instances of a batch (8 min at 1,000): a shared machine's batch is slow. */
  private static Duration batchWait(int instances) {
    return Duration.ofSeconds(120 + instances / 2);
  }

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
      ChangeBatches targets = ChangeBatches.prepare(node, instances);
      timed.accept(2 * instances + " instances created and searchable");
      ChangeBatches.Started batches = targets.start(new WebApiAs(node.httpPort(), "operator", "o"));
      long batchStarted = System.nanoTime();

      WebApiAs reader = new WebApiAs(node.httpPort(), "reader", "r");
      long[] done = new long[1];
      long[] logged = {System.nanoTime()};
      awaitUntil("half of the items done", batchWait(instances), () -> {
        done[0] = 2L * instances - items(reader, batches.migration(), "ACTIVE")
            - items(reader, batches.modification(), "ACTIVE");
        if (System.nanoTime() - logged[0] > 10_000_000_000L) {
          logged[0] = System.nanoTime();
          timed.accept(done[0] + " of " + 2 * instances + " items done");
        }
        return done[0] >= instances;
      });
      node.kill();
      timed.accept("SIGKILL at " + done[0] + " of " + 2 * instances + " items done");
      long restart = System.nanoTime();
      node = NodeProcess.start(root, workDir, node.ports(), arguments, classpath);
      double restartSeconds = seconds(restart);
      timed.accept(String.format("restarted in %.1f s", restartSeconds));

      WebApiAs after = new WebApiAs(node.httpPort(), "reader", "r");
      for (String key : batches.types().keySet()) {
        awaitUntil("batch " + key + " ends by itself", batchWait(instances), () ->
            !"ACTIVE".equals(after.get("/v2/batch-operations/" + key).path("state").asText()));
      }
      double batchSeconds = seconds(batchStarted);
      JsonNode migrationBatch = after.get("/v2/batch-operations/" + batches.migration());
      JsonNode modificationBatch = after.get("/v2/batch-operations/" + batches.modification());
      timed.accept("batches ended");
      List<String> audit = BatchAuditEntries.violations(after, batches.types(), "operator");
      node.terminate(); // the recorder syncs its file on a clean stop

      EngineInstanceChanges engine = EngineInstanceChanges.read(records);
      List<String> violations = targets.violations(engine);
      Report report = new Report(instances, done[0], restartSeconds, batchSeconds, migrationBatch, modificationBatch,
          targets.rejected(engine), violations.subList(0, Math.min(20, violations.size())), audit);
      timed.accept("checked: " + report);
      return report;
    } finally {
      node.close();
    }
  }
}
