package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch-restart scenario ({@link BatchRestart}) in short: a batch cancel of 400 waiting instances through the
 * REST API on a node process stopped with SIGTERM at about a third of the batch and killed with SIGKILL at about two
 * thirds, restarted on its data each time. The batch goes on by itself; the engine's own records show every instance
 * cancelled exactly once (one accepted CANCEL command, one ELEMENT_TERMINATED); the progress endpoint reports every
 * item completed, none failed. The 1,000-instance run: {@code benchmarks/run batch-restart}. 8 commands in flight
 * (not the default 4), so that each stop is likelier to catch commands the engine carried out but the batch had not
 * yet recorded (those are sent again, rejected, and must count as done), with enough items that a quiet machine's
 * batch is not over before the kill.
 */
class BatchCancelAcrossRestartsTest {

  private static final int INSTANCES = 400;

  @Test
  void aBatchCancelGoesOnAfterASigtermAndASigkillAndCancelsEveryInstanceExactlyOnce(@TempDir Path work)
      throws Exception {
    Path root = Path.of(System.getProperty("flowpipe.project.root", "..")).toAbsolutePath();

    BatchRestart.Report report = BatchRestart.run(root, work, INSTANCES, 8, System.out::println);

    assertThat(report.doneAtSigkill()).as("the kill came before the batch's end").isLessThan(INSTANCES);
    SoftAssertions.assertSoftly(soft -> {
      soft.assertThat(report.progress().path("state").asText()).as("batch state").isEqualTo("COMPLETED");
      soft.assertThat(report.progress().path("operationsTotalCount").asInt()).as("total").isEqualTo(INSTANCES);
      soft.assertThat(report.progress().path("operationsCompletedCount").asInt()).as("completed")
          .isEqualTo(INSTANCES);
      soft.assertThat(report.progress().path("operationsFailedCount").asInt()).as("failed").isZero();
      soft.assertThat(report.itemsCompleted()).as("items COMPLETED").isEqualTo(INSTANCES);
      soft.assertThat(report.violations()).as("instances not cancelled exactly once by the engine's records")
          .isEmpty();
    });
    assertThat(report.passed()).isTrue();
  }
}
