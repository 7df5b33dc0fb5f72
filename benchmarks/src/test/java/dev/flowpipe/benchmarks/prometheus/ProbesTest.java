package dev.flowpipe.benchmarks.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import io.camunda.zeebe.client.api.command.ClientStatusException;
import io.grpc.Status;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import dev.flowpipe.testsupport.CommandOutcome;

/** Backpressure detection and the exporter-lag probe. */
class ProbesTest {

  @Nested
  class Backpressure {

    @Test
    void resourceExhaustedWrappedByTheClientAndTheFutureIsARejection() {
      Throwable error = new CompletionException(new ClientStatusException(
          Status.RESOURCE_EXHAUSTED.withDescription("write limit"), null));

      assertThat(CommandOutcome.of(error)).isEqualTo(CommandOutcome.REJECTED);
    }

    @Test
    void aBareGrpcStatusRuntimeExceptionDeepInTheChainIsFound() {
      Throwable error = new ExecutionException(new RuntimeException(
          Status.RESOURCE_EXHAUSTED.asRuntimeException()));

      assertThat(CommandOutcome.of(error)).isEqualTo(CommandOutcome.REJECTED);
    }

    @Test
    void otherStatusesAreNotBackpressure() {
      assertThat(CommandOutcome.of(new ClientStatusException(Status.DEADLINE_EXCEEDED, null)))
          .isEqualTo(CommandOutcome.TIMED_OUT);
      assertThat(CommandOutcome.of(new ClientStatusException(Status.ABORTED, null)))
          .isEqualTo(CommandOutcome.FAILED);
      assertThat(CommandOutcome.of(new IllegalStateException("no status"))).isEqualTo(CommandOutcome.FAILED);
      assertThat(CommandOutcome.of(null)).isEqualTo(CommandOutcome.ACCEPTED);
    }

    @Test
    void anErrorIsNamedByItsStatusCode() {
      assertThat(CommandOutcome.kind(new CompletionException(new ClientStatusException(Status.ABORTED, null))))
          .isEqualTo("ABORTED");
      assertThat(CommandOutcome.kind(new RuntimeException(new java.io.IOException("x")))).isEqualTo("IOException");
    }
  }

  @Nested
  class ExporterLagProbe {

    @Test
    void readsAgeAndRecordsTheLargestOverPartitions() {
      String text = """
          # HELP flowpipe_exporter_lag_age_milliseconds age of the oldest record not yet durable
          # TYPE flowpipe_exporter_lag_age_milliseconds gauge
          flowpipe_exporter_lag_age_milliseconds{partition="1"} 120.0
          flowpipe_exporter_lag_age_milliseconds{partition="2"} 340.0
          flowpipe_exporter_lag_records{partition="1"} 17.0
          flowpipe_exporter_lag_records{partition="2"} 3.0
          flowpipe_exporter_lag_documents{partition="1"} 99.0
          """;

      assertThat(ExporterLag.parse(text)).isEqualTo(new ExporterLag(340, 17));
    }

    @Test
    void aNodeWithoutOurExporterHasNoLag() {
      assertThat(ExporterLag.parse("jvm_threads_live_threads 40.0\n")).isNull();
    }
  }

  @Nested
  class FlowControlRefusalCount {

    @Test
    void sumsTheWriteLimitsRefusalsOverPartitionsAndNothingElse() {
      String text = """
          # TYPE flowpipe_flowcontrol_rejected_total counter
          flowpipe_flowcontrol_rejected_total{partition="1"} 12.0
          flowpipe_flowcontrol_rejected_total{partition="2"} 3.0
          flowpipe_flowcontrol_rejected_commands 1000.0
          flowpipe_flowcontrol_write_limit{partition="1"} 450.0
          """;

      assertThat(FlowControlRefusals.parse(text)).isEqualTo(15);
    }

    @Test
    void noPartitionLedYetIsNoRefusal() {
      assertThat(FlowControlRefusals.parse("jvm_threads_live_threads 40.0\n")).isZero();
    }
  }
}
