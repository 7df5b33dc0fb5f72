package dev.flowpipe.server.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The age of the oldest record not yet durable, from the positions a leader's metrics showed once a tick (every
 * 250 ms). The oracle is when the test wrote the record: the answer must be within one tick of it.
 */
class AppendTimesTest {

  private static final long TICK = 250_000_000L;
  private static final long SECOND = 1_000_000_000L;
  private static final Duration ONE_TICK = Duration.ofNanos(TICK);

  private final AppendTimes times = new AppendTimes(Duration.ofMinutes(2));

  /** Ticks from {@code fromNanos} to {@code toNanos}, the log written at {@code perSecond} records a second from 0. */
  private void writtenAt(int perSecond, long fromNanos, long toNanos) {
    for (long nanos = fromNanos; nanos <= toNanos; nanos += TICK) {
      times.reached(1, perSecond * nanos / SECOND, nanos);
    }
  }

  @Test
  void aStoreThatStoodStillForSecondsGivesTheOldestRecordsAgeNotTheBacklogOverTheFloor() {
    // given 48 records a second for 10 s, the store durable up to position 120 (written at 2.5 s)
    writtenAt(48, 0, 10 * SECOND);

    // then the record after it has waited 7.5 s (where the backlog of 360 over a floor of 20 records/s said 18 s)
    assertThat(times.oldestPendingAge(1, 120, 10 * SECOND)).hasValueSatisfying(
        age -> assertThat(age).isBetween(Duration.ofMillis(7_500).minus(ONE_TICK), Duration.ofMillis(7_500)));
  }

  @Test
  void aStoreDurableUpToTheLastPositionHasNothingWaiting() {
    writtenAt(48, 0, 2 * SECOND);

    assertThat(times.oldestPendingAge(1, 96, 3 * SECOND)).contains(Duration.ZERO);
  }

  @Test
  void recordsWrittenAfterTheLogStoodStillAreDatedFromWhenItMovedAgain() {
    // given the log at 100 from 0 to 5 s, then 12 records more by 5.25 s
    for (long nanos = 0; nanos <= 5 * SECOND; nanos += TICK) {
      times.reached(1, 100, nanos);
    }
    times.reached(1, 112, 5 * SECOND + TICK);

    // then the first of them has waited less than 1 s at 6 s, not the 6 s since the log first stood at 100
    assertThat(times.oldestPendingAge(1, 100, 6 * SECOND)).hasValueSatisfying(
        age -> assertThat(age).isBetween(Duration.ofMillis(750), Duration.ofSeconds(1)));
  }

  @Nested
  class BeyondWhatIsKept {

    private final AppendTimes shortTimes = new AppendTimes(Duration.ofSeconds(10));

    @Test
    void anOlderRecordIsDatedBackAtTheRateTheKeptTimesShow() {
      for (long nanos = 0; nanos <= 30 * SECOND; nanos += TICK) {
        shortTimes.reached(1, 48 * nanos / SECOND, nanos);
      }

      // position 49 was written at ~1 s, 20 s before the oldest time kept
      assertThat(shortTimes.oldestPendingAge(1, 48, 30 * SECOND)).hasValueSatisfying(
          age -> assertThat(age).isBetween(Duration.ofSeconds(29).minus(ONE_TICK), Duration.ofSeconds(29)));
    }

    @Test
    void withoutTwoTimesOrAfterANewLogItCannotTell() {
      assertThat(shortTimes.oldestPendingAge(1, 0, SECOND)).as("no times").isEmpty();

      shortTimes.reached(1, 500, 0);
      shortTimes.reached(1, 600, TICK);
      shortTimes.reached(1, 40, 2 * TICK); // a lower position: another log

      assertThat(shortTimes.oldestPendingAge(1, 10, 3 * TICK)).as("one time of the new log").isEmpty();
    }
  }
}
