package dev.flowpipe.node.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.writer.retention.RetentionArguments;
import dev.flowpipe.schema.retention.Period;
import dev.flowpipe.schema.retention.RetentionStatus;
import dev.flowpipe.schema.store.StoreUnavailableException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class RetentionServiceTest {

  private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private RetentionService service(Supplier<RetentionStatus> sweep) {
    return new RetentionService(sweep, Executors.newSingleThreadScheduledExecutor(), Duration.ofMinutes(10),
        Clock.fixed(NOW, ZoneOffset.UTC), registry);
  }

  @Nested
  class AfterASweep {

    @Test
    void theGaugesShowTheOldestDataHeldTheBytesAndTheTimeToTheNextDeletion() {
      Instant oldest = NOW.minus(Duration.ofDays(31));
      Instant next = NOW.plus(Duration.ofHours(2));
      RetentionStatus status = new RetentionStatus(List.of(Period.of(oldest.minus(Duration.ofDays(1)),
          Duration.ofDays(1))), List.of(), 0, 0, 0, Optional.of(oldest), 12_345, Optional.of(next));
      try (RetentionService service = service(() -> status)) {

        service.runOnce();

        assertThat(registry.get("flowpipe.retention.oldest.data.age").gauge().value())
            .isEqualTo(Duration.ofDays(31).toSeconds());
        assertThat(registry.get("flowpipe.retention.bytes.held").gauge().value()).isEqualTo(12_345);
        assertThat(registry.get("flowpipe.retention.next.deletion").gauge().value())
            .isEqualTo(Duration.ofHours(2).toSeconds());
        assertThat(service.lastFailure()).isEmpty();
      }
    }

    @Test
    void aFailedSweepIsKeptForHealthAndTheNextSucceedingOneClearsIt() {
      RetentionStatus empty = new RetentionStatus(List.of(), List.of(), 0, 0, 0, Optional.empty(), 0, Optional.empty());
      boolean[] storeDown = {true};
      try (RetentionService service = service(() -> {
        if (storeDown[0]) {
          throw new StoreUnavailableException("store at http://127.0.0.1:1 unreachable");
        }
        return empty;
      })) {

        service.runOnce();
        assertThat(service.lastFailure()).get().asString().contains("unreachable");
        assertThat(service.lastRun()).contains(NOW);

        storeDown[0] = false;
        service.runOnce();
        assertThat(service.lastFailure()).isEmpty();
        assertThat(service.last()).contains(empty);
      }
    }
  }

  @Nested
  class TheSettings {

    @Test
    void areOffWithoutKeepAndHandTheExporterNothing() {
      RetentionProperties off = new RetentionProperties(null, Duration.ofDays(1), Duration.ofMinutes(10));

      assertThat(off.settings().enabled()).isFalse();
      assertThat(off.exporterArguments()).isEmpty();
    }

    @Test
    void handTheExporterTheSameKeepAndPeriod() {
      RetentionProperties on = new RetentionProperties(Duration.ofDays(30), Duration.ofDays(1), Duration.ofMinutes(5));

      assertThat(on.exporterArguments()).containsEntry(RetentionArguments.KEEP, "PT720H")
          .containsEntry(RetentionArguments.PERIOD, "PT24H");
      assertThat(RetentionArguments.fromArguments(on.exporterArguments())).isEqualTo(on.settings());
    }

    @Test
    void nameTheNodesKeyAndTheValueTheyRefuse() {
      assertThatThrownBy(() -> new RetentionProperties(Duration.ofDays(30), Duration.ofMillis(500), Duration.ofMinutes(5)))
          .hasMessage("flowpipe.retention.period must be whole seconds, at least 1s, was PT0.5S");
    }
  }
}
