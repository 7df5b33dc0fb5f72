package dev.flowpipe.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.flowcontrol.PartitionFlowControl.Leadership;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** One partition's loop on a store that stopped: 500 records/s written, nothing durable, one reading per 250 ms. */
class PartitionFlowControlTest {

  private static final ControlSettings SETTINGS = ControlSettings.defaults();
  private static final long TICK = 250_000_000L;

  private final PartitionFlowControl loop = new PartitionFlowControl(1, SETTINGS.window());
  private long nanos;
  private long written;

  private Optional<OptionalInt> tick(Leadership leadership) {
    nanos += TICK;
    written += 125;
    Optional<OptionalInt> limit = loop.tick(new LagReading(written, 0, Optional.empty()), leadership, SETTINGS, false,
        UnaryOperator.identity(), nanos);
    limit.ifPresent(l -> loop.applied(l, nanos));
    return limit;
  }

  /** Ticks until the loop hands out a limit; the number of ticks it took. */
  private int ticksUntilLimited() {
    for (int i = 1; i <= 200; i++) {
      Optional<OptionalInt> limit = tick(Leadership.SAME);
      if (limit.isPresent() && limit.get().isPresent()) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void theAgeIsEstimatedFromTheBacklogWhereTheSourceKnowsNone() {
    tick(Leadership.SAME);
    // 125 records, no export rate yet: backlog over the floor of 100 records/s
    assertThat(loop.lag().age()).isEqualTo(Duration.ofMillis(1_250));
  }

  @Test
  void theEstimatedAgeDropsAsSoonAsTheStoreCatchesUpWhateverTheWindowsExportRate() {
    ticksUntilLimited();
    assertThat(loop.lag().age()).as("a stopped store: the age grows").isGreaterThan(Duration.ofSeconds(1));

    // the store recovers: everything written up to the previous reading is durable, the window's rate still low
    long durable = written;
    nanos += TICK;
    written += 125;
    loop.tick(new LagReading(written, durable, Optional.empty()), Leadership.SAME, SETTINGS, false,
        UnaryOperator.identity(), nanos);

    assertThat(loop.lag().age()).as("only what was written since the last reading waits")
        .isLessThanOrEqualTo(Duration.ofNanos(TICK));
  }

  @Test
  void aLimitIsHandedOutOnceAndThenOnlyWhenItMovesEnough() {
    assertThat(ticksUntilLimited()).isPositive();
    OptionalInt first = loop.appliedLimit();
    int handedOut = 0;
    for (int i = 0; i < 8; i++) {
      if (tick(Leadership.SAME).isPresent()) {
        handedOut++;
      }
    }
    assertThat(first).isPresent();
    assertThat(handedOut).as("the floor holds: nothing to apply again").isZero();
  }

  @Test
  void aLimitThatWasNotPutInForceIsHandedOutAgainAtTheNextTickThoughItDidNotMove() {
    ticksUntilLimited();
    OptionalInt inForce = loop.appliedLimit();
    assertThat(tick(Leadership.SAME)).as("given the floor holds: nothing to apply").isEmpty();

    // when the applier failed on the limit of this tick
    loop.notApplied();

    assertThat(tick(Leadership.SAME)).as("handed out again").contains(inForce);
    assertThat(tick(Leadership.SAME)).as("taken: nothing more to apply").isEmpty();
  }

  @Nested
  class AfterALeaderChange {

    @Test
    void aNewLeaderOnTheSameLogGetsTheLimitAgainAndTheWindowGoesOn() {
      ticksUntilLimited();
      OptionalInt inForce = loop.appliedLimit();

      Optional<OptionalInt> next = tick(Leadership.NEW_LEADER);

      assertThat(next).as("applied again on the new leader").contains(inForce);
      assertThat(loop.throttling()).isTrue();
    }

    @Test
    void aLimitANewLeaderDidNotTakeIsHandedOutAgainUntilItDoes() {
      ticksUntilLimited();
      OptionalInt inForce = loop.appliedLimit();
      nanos += TICK;
      written += 125;
      // the apply on the new leader fails: applied() is not called
      assertThat(loop.tick(new LagReading(written, 0, Optional.empty()), Leadership.NEW_LEADER, SETTINGS, false,
          UnaryOperator.identity(), nanos)).contains(inForce);

      assertThat(tick(Leadership.SAME)).as("handed out again").contains(inForce);
      assertThat(tick(Leadership.SAME)).as("taken at last: nothing more to apply").isEmpty();
    }

    @Test
    void aTakeOverStartsTheWindowAnewAndReleases() {
      ticksUntilLimited();

      Optional<OptionalInt> next = tick(Leadership.TAKEN_OVER);

      assertThat(next).as("no limit before a new window has filled").contains(OptionalInt.empty());
      assertThat(loop.throttling()).isFalse();
    }
  }
}
