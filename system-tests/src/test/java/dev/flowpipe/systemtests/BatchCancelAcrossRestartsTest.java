package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch-restart scenario ({@link BatchRestart}) in short, with the batch-change-restart one's batches beside it on
 * the same node: a batch cancel of 400 waiting instances through the REST API on a node process stopped with SIGTERM
 * at about a third of the batch and killed with SIGKILL at about two thirds, restarted on its data each time; a batch
 * migration and a batch modification of 30 instances each ({@link ChangeBatches}), started at once just before the
 * SIGKILL, so that the kill finds their first commands in flight. The batches go on by themselves; the engine's own
 * records show every instance cancelled exactly once (one accepted CANCEL command, one ELEMENT_TERMINATED), migrated
 * exactly once (one MIGRATED) and modified exactly once (one MODIFIED); the progress endpoint reports every item
 * completed, none failed; the audit log holds one entry per batch and nothing more. The 1,000-instance runs:
 * {@code benchmarks/run batch-restart} and {@code benchmarks/run batch-change-restart} (killed at half of the
 * migration's and modification's items). 8 commands in flight (not the default 4), so that each stop is likelier to
 * catch commands the engine carried out but the batch had not yet recorded (those are sent again, rejected, and must
 * count as done), with enough items that a quiet machine's batch is not over before the kill.
 */
class BatchCancelAcrossRestartsTest {

  private static final int INSTANCES = 400;
  private static final int CHANGED_INSTANCES = 30;

  @Test
  void batchesGoOnAfterASigtermAndASigkillAndChangeEveryInstanceExactlyOnceWithOneAuditEntryEach(@TempDir Path work)
      throws Exception {
    Path root = Path.of(System.getProperty("flowpipe.project.root", "..")).toAbsolutePath();

    BatchRestart.Report report = BatchRestart.run(root, work, INSTANCES, 8, CHANGED_INSTANCES, System.out::println);

    assertThat(report.doneAtSigkill()).as("the kill came before the cancel's end").isLessThan(INSTANCES);
    assertThat(report.changes().processedBeforeSigkill()).as("the kill came before the migration's and"
        + " modification's end").isLessThan(2L * CHANGED_INSTANCES);
    SoftAssertions.assertSoftly(soft -> {
      soft.assertThat(report.progress().path("state").asText()).as("batch state").isEqualTo("COMPLETED");
      soft.assertThat(report.progress().path("operationsTotalCount").asInt()).as("total").isEqualTo(INSTANCES);
      soft.assertThat(report.progress().path("operationsCompletedCount").asInt()).as("completed")
          .isEqualTo(INSTANCES);
      soft.assertThat(report.progress().path("operationsFailedCount").asInt()).as("failed").isZero();
      soft.assertThat(report.itemsCompleted()).as("items COMPLETED").isEqualTo(INSTANCES);
      soft.assertThat(report.violations()).as("instances not cancelled exactly once by the engine's records")
          .isEmpty();
      for (var batch : List.of(report.changes().migration(), report.changes().modification())) {
        soft.assertThat(batch.path("state").asText()).as("state of " + batch).isEqualTo("COMPLETED");
        soft.assertThat(batch.path("operationsTotalCount").asInt()).as("total").isEqualTo(CHANGED_INSTANCES);
        soft.assertThat(batch.path("operationsCompletedCount").asInt()).as("completed").isEqualTo(CHANGED_INSTANCES);
        soft.assertThat(batch.path("operationsFailedCount").asInt()).as("failed").isZero();
      }
      soft.assertThat(report.changes().violations())
          .as("instances not migrated, or modified, exactly once by the engine's records").isEmpty();
      soft.assertThat(report.auditViolations()).as("the audit log: one entry per batch, nothing more").isEmpty();
    });
    assertThat(report.passed()).isTrue();
  }
}
