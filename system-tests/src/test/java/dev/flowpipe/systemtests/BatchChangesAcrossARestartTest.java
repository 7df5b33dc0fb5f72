package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch-change-restart scenario ({@link BatchChangeRestart}) in short: a batch migration and a batch modification
 * of 40 waiting instances each, through the REST API in the 8.8 shapes, on a node process killed with SIGKILL once
 * about half of their items is done and restarted on its data. The batches go on by themselves; the engine's own
 * records show every instance migrated, or modified, exactly once (one MIGRATED, one MODIFIED event); both batches end
 * with every item completed. One command in flight per batch, so that the kill finds the batches half done on a quiet
 * machine too. The 1,000-instance run: {@code benchmarks/run batch-change-restart}.
 */
class BatchChangesAcrossARestartTest {

  private static final int INSTANCES = 40;

  @Test
  void aBatchMigrationAndABatchModificationGoOnAfterASigkillAndChangeEveryInstanceExactlyOnce(@TempDir Path work)
      throws Exception {
    Path root = Path.of(System.getProperty("flowpipe.project.root", "..")).toAbsolutePath();

    BatchChangeRestart.Report report = BatchChangeRestart.run(root, work, INSTANCES, 1, System.out::println);

    assertThat(report.doneAtSigkill()).as("the kill came before the batches' end").isLessThan(2L * INSTANCES);
    SoftAssertions.assertSoftly(soft -> {
      for (var batch : java.util.List.of(report.migration(), report.modification())) {
        soft.assertThat(batch.path("state").asText()).as("state of " + batch).isEqualTo("COMPLETED");
        soft.assertThat(batch.path("operationsTotalCount").asInt()).as("total").isEqualTo(INSTANCES);
        soft.assertThat(batch.path("operationsCompletedCount").asInt()).as("completed").isEqualTo(INSTANCES);
        soft.assertThat(batch.path("operationsFailedCount").asInt()).as("failed").isZero();
      }
      soft.assertThat(report.violations()).as("instances not changed exactly once by the engine's records").isEmpty();
    });
    assertThat(report.passed()).isTrue();
  }
}
