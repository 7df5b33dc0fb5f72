package dev.flowpipe.server.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.flowpipe.flowcontrol.ControlSettings;
import dev.flowpipe.flowcontrol.LagReading;
import dev.flowpipe.flowcontrol.WriteLimitApplier;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The controller's round over a cluster of three partitions (leaders 0, 1 and 2) with a static write limit of 1234
 * records/s, which every partition asks for from its first tick; the applier is a fake of our own that refuses the
 * partitions it is told to.
 */
class StockClusterFlowControllerTest {

  private static final int LIMIT = 1234;
  private static final ControlSettings STATIC_LIMIT = new ControlSettings(false, ControlSettings.Mode.TIME,
      Duration.ofSeconds(2), 100_000, 100, Duration.ofMillis(250), LIMIT, Duration.ofSeconds(5), Duration.ZERO);

  private final FakeClusterLag lag = new FakeClusterLag();
  private final RefusingApplier applier = new RefusingApplier();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final StockClusterFlowController controller = new StockClusterFlowController(lag, applier, STATIC_LIMIT,
      Clock.fixed(Instant.parse("2026-11-27T00:00:00Z"), ZoneOffset.UTC), scheduler, registry);

  @AfterEach
  void stopScheduler() {
    scheduler.shutdownNow();
  }

  private double failures() {
    return registry.get("flowpipe.flowcontrol.apply.failures").functionCounter().count();
  }

  private double pending() {
    return registry.get("flowpipe.flowcontrol.apply.pending").gauge().value();
  }

  private Map<String, Object> reported(int partitionId) {
    return controller.report().stream().filter(p -> p.get("partitionId").equals(partitionId)).findFirst().orElseThrow();
  }

  @Test
  void itReportsBeingWithinItsWarmUpUntilTheWarmUpHasPassedSinceItsStart() {
    // given a controller with a warm-up of 60 s and a clock the test moves
    Instant start = Instant.parse("2026-11-27T00:00:00Z");
    Clock[] now = {Clock.fixed(start, ZoneOffset.UTC)};
    Clock moving = new Clock() {
      @Override
      public java.time.ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(java.time.ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        return now[0].instant();
      }
    };
    ControlSettings warmingUp = new ControlSettings(true, ControlSettings.Mode.TIME, Duration.ofSeconds(2), 100_000,
        100, Duration.ofMillis(250), 0, Duration.ofSeconds(5), Duration.ofSeconds(60));
    StockClusterFlowController fresh =
        new StockClusterFlowController(lag, applier, warmingUp, moving, scheduler, new SimpleMeterRegistry());

    // then
    now[0] = Clock.fixed(start.plusSeconds(59), ZoneOffset.UTC);
    assertThat(fresh.warmingUp()).isTrue();
    now[0] = Clock.fixed(start.plusSeconds(60), ZoneOffset.UTC);
    assertThat(fresh.warmingUp()).isFalse();
  }

  @Nested
  class WhenOnePartitionsApplyFails {

    @Test
    void theOtherPartitionsGetTheirLimitInTheSameTick() {
      // given no broker takes partition 2's limit
      applier.refuse(2);

      // when
      controller.tick();

      // then
      assertThat(applier.taken).containsExactlyInAnyOrder(entry(1, OptionalInt.of(LIMIT)),
          entry(3, OptionalInt.of(LIMIT)));
      assertThat(applier.refused).containsExactly(2);
    }

    @Test
    void itIsCountedAndShownWithItsErrorUntilItIsTaken() {
      applier.refuse(2);

      controller.tick();

      assertThat(failures()).isEqualTo(1.0);
      assertThat(pending()).isEqualTo(1.0);
      assertThat(controller.failing()).containsOnlyKeys(2);
      assertThat(controller.failing().get(2).attempts()).isEqualTo(1);
      @SuppressWarnings("unchecked")
      Map<String, Object> failure = (Map<String, Object>) reported(2).get("applyFailure");
      assertThat(failure).containsEntry("writeLimit", "1234 records/s").containsEntry("attempts", 1)
          .containsEntry("error", "no broker took the write limit for partition 2");
      assertThat(reported(1).get("applyFailure")).isNull();
      assertThat(reported(2).get("writeLimit")).as("no limit is in force for it").isNull();
      assertThat(reported(1).get("writeLimit")).isEqualTo(LIMIT);
    }

    @Test
    void itIsTriedAgainEachTickThoughTheLimitDidNotMoveAndTheOthersAreNotAppliedAgain() {
      applier.refuse(2);
      controller.tick();
      controller.tick();
      assertThat(applier.refused).as("tried again at the next tick").containsExactly(2, 2);
      assertThat(controller.failing().get(2).attempts()).isEqualTo(2);

      // when the broker answers again
      applier.refuse();
      controller.tick();

      // then
      assertThat(applier.taken).containsExactlyInAnyOrder(entry(1, OptionalInt.of(LIMIT)),
          entry(3, OptionalInt.of(LIMIT)), entry(2, OptionalInt.of(LIMIT)));
      assertThat(controller.failing()).isEmpty();
      assertThat(pending()).isZero();
      assertThat(failures()).as("the count of failed attempts stays").isEqualTo(2.0);
      assertThat(reported(2).get("writeLimit")).isEqualTo(LIMIT);

      controller.tick();
      assertThat(applier.taken).as("nothing more to apply").hasSize(3);
    }
  }

  /** Three partitions led by brokers 0, 1 and 2, their stores 500 records behind. */
  private static final class FakeClusterLag implements ClusterLag {

    private final ClusterView view = new ClusterView(Map.of(1, 0, 2, 1, 3, 2),
        Map.of(0, "zeebe-0", 1, "zeebe-1", 2, "zeebe-2"), new TreeSet<>(Set.of(1, 2, 3)));
    private long written = 1_000;

    @Override
    public ClusterView refresh() {
      written += 125;
      return view;
    }

    @Override
    public Optional<LagReading> read(int partitionId) {
      return Optional.of(new LagReading(written, written - 500, Optional.empty()));
    }
  }

  /** Takes every limit except for the partitions it is told to refuse, as the brokers' endpoint would by throwing. */
  private static final class RefusingApplier implements WriteLimitApplier {

    private final List<Map.Entry<Integer, OptionalInt>> taken = new ArrayList<>();
    private final List<Integer> refused = new ArrayList<>();
    private Set<Integer> refusing = Set.of();

    void refuse(Integer... partitions) {
      refusing = Set.of(partitions);
    }

    @Override
    public void apply(int partitionId, OptionalInt limit) {
      if (refusing.contains(partitionId)) {
        refused.add(partitionId);
        throw new IllegalStateException("no broker took the write limit for partition " + partitionId);
      }
      taken.add(Map.entry(partitionId, limit));
    }
  }
}
