package dev.flowpipe.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.flowcontrol.ControlSettings.Mode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The controller on traces of a partition's lag, one sample per tick (250 ms): what a fresh node under a light load
 * shows, a flat lag below the target, a store that stops, a recovery, a restart that catches up.
 */
class WriteRateControllerTest {

  private static final ControlSettings SETTINGS = ControlSettings.defaults(); // 2 s, window 5 s, floor 100

  /** Feeds a trace tick by tick into one controller and remembers each tick's limit. */
  private static final class Run {
    final ControlSettings settings;
    final boolean warmingUp;
    final WriteRateController controller = new WriteRateController();
    final LagWindow window;
    final List<OptionalInt> limits = new ArrayList<>();
    long nanos;
    long written;
    double exported;

    Run(ControlSettings settings, boolean warmingUp) {
      this.settings = settings;
      this.warmingUp = warmingUp;
      this.window = new LagWindow(settings.window());
    }

    /** {@code seconds} of writes and exports at these rates, the oldest record {@code ageMillis} old at each tick. */
    Run phase(double seconds, double writeRate, double exportRate, AgeAt age) {
      long ticks = Math.round(seconds * 4);
      for (long i = 0; i < ticks; i++) {
        nanos += 250_000_000L;
        written += Math.round(writeRate / 4);
        exported = Math.min(written, exported + exportRate / 4);
        window.add(new LagSample(nanos, written, (long) exported, Duration.ofMillis(age.millis(i / 4.0))),
            settings.window());
        limits.add(controller.next(settings, window, warmingUp));
      }
      return this;
    }

    /** The first tick (seconds from the start) at which the controller set a limit, or -1. */
    double firstLimitedAt() {
      for (int i = 0; i < limits.size(); i++) {
        if (limits.get(i).isPresent()) {
          return (i + 1) / 4.0;
        }
      }
      return -1;
    }

    boolean everLimited() {
      return firstLimitedAt() >= 0;
    }

    OptionalInt last() {
      return limits.getLast();
    }

    /** Seconds from the start until no limit, looking from {@code fromSeconds} on; -1 if still limited. */
    double releasedAt(double fromSeconds) {
      for (int i = (int) (fromSeconds * 4); i < limits.size(); i++) {
        if (limits.get(i).isEmpty()) {
          return (i + 1) / 4.0;
        }
      }
      return -1;
    }
  }

  /** The age of the oldest record not yet durable, by seconds into a phase. */
  @FunctionalInterface
  interface AgeAt {
    long millis(double secondsIntoPhase);

    static AgeAt flat(long millis) {
      return seconds -> millis;
    }
  }

  @Nested
  class NeverEngages {

    @Test
    void onAFreshNodesLightLoad() {
      // seen on a fresh node: writes at 483/s outrun exports at 204/s for the first seconds, the oldest record 786 ms
      // old at worst, then the warm store catches up
      Run run = new Run(SETTINGS, true)
          .phase(3, 483, 204, seconds -> (long) (262 * seconds))
          .phase(2, 300, 700, seconds -> (long) (786 - 300 * seconds))
          .phase(20, 150, 150, AgeAt.flat(120));
      assertThat(run.everLimited()).isFalse();
    }

    @Test
    void onAFlatLagBelowTheTarget() {
      Run run = new Run(SETTINGS, false).phase(60, 500, 495, AgeAt.flat(800));
      assertThat(run.everLimited()).isFalse();
    }

    @Test
    void onOneSlowBulk() {
      Run run = new Run(SETTINGS, false)
          .phase(10, 400, 400, AgeAt.flat(150))
          .phase(3, 400, 0, seconds -> (long) (150 + 1000 * seconds)) // a bulk that takes three seconds
          .phase(10, 400, 800, AgeAt.flat(200));
      assertThat(run.everLimited()).as("the age passed the target, but not for a whole window").isFalse();
    }

    @Test
    void whileARestartedNodeCatchesUpOnALargeBacklog() {
      // two minutes of backlog: the oldest record is old, but the backlog shrinks all along
      Run run = new Run(SETTINGS, true);
      run.written = 120 * 500;
      run.phase(60, 200, 1_500, seconds -> (long) (120_000 - 1000 * seconds));
      assertThat(run.everLimited()).isFalse();
    }

    @Test
    void beforeTheWindowHasFilledOnce() {
      Run run = new Run(SETTINGS, false).phase(4.75, 500, 0, AgeAt.flat(60_000));
      assertThat(run.everLimited()).isFalse();
    }
  }

  @Nested
  class Engages {

    @Test
    void onAGrowingBacklogWithinTenSeconds() {
      // the store stops: nothing becomes durable and the oldest record ages with the clock
      Run run = new Run(SETTINGS, false).phase(15, 500, 0, seconds -> (long) (1000 * seconds));
      assertThat(run.firstLimitedAt()).isBetween(5.0, 10.0);
      assertThat(run.last()).as("nothing is exported: the floor").hasValue(100);
    }

    @Test
    void onAGrowingBacklogWithinTenSecondsDuringTheWarmUpToo() {
      Run run = new Run(SETTINGS, true).phase(15, 500, 0, seconds -> (long) (1000 * seconds));
      assertThat(run.firstLimitedAt()).isBetween(5.0, 10.0);
    }

    @Test
    void onABacklogOfAcceptableBacklogRecordsThatGrowsEvenIfTheAgeSaysNothing() {
      // a store never reached: no age from the exporter, but the records pile up
      ControlSettings small = with(SETTINGS.enabled(), Mode.TIME, 2_000, SETTINGS.writeLimit());
      Run run = new Run(small, true).phase(15, 500, 0, AgeAt.flat(0));
      assertThat(run.firstLimitedAt()).isBetween(5.0, 10.0);
    }

    @Test
    void inRecordsModeOnTheBacklogAlone() {
      ControlSettings records = with(SETTINGS.enabled(), Mode.RECORDS, 2_000, SETTINGS.writeLimit());
      assertThat(new Run(records, false).phase(15, 500, 0, AgeAt.flat(0)).firstLimitedAt()).isBetween(5.0, 10.0);
      assertThat(new Run(records, false).phase(30, 500, 450, AgeAt.flat(60_000)).everLimited())
          .as("age ignored, backlog below the target").isFalse();
    }
  }

  @Nested
  class Holds {

    @Test
    void theLagAtTheTargetByLimitingToWhatTheStoreAbsorbs() {
      Run run = new Run(SETTINGS, false)
          .phase(6, 900, 300, AgeAt.flat(2_000)) // engaged at the target
          .phase(10, 300, 300, AgeAt.flat(2_000));
      assertThat(run.everLimited()).isTrue();
      assertThat(run.last().getAsInt()).as("the export rate").isBetween(295, 305);
    }

    @Test
    void belowTheExportRateAboveTheTargetButNeverBelowHalfOfIt() {
      Run run = new Run(SETTINGS, false)
          .phase(8, 900, 400, seconds -> (long) (1000 * seconds))
          .phase(10, 400, 400, AgeAt.flat(20_000));
      assertThat(run.last().getAsInt()).isBetween(200, 399);
    }

    @Test
    void aboveTheExportRateBelowTheTargetSoTheLagRisesToIt() {
      Run run = new Run(SETTINGS, false)
          .phase(8, 900, 400, seconds -> (long) (1000 * seconds))
          .phase(1, 400, 400, AgeAt.flat(1_200));
      assertThat(run.last().getAsInt()).isGreaterThan(400);
    }
  }

  @Test
  void releasesCompletelyWithinFiveSecondsOfRecovery() {
    Run run = new Run(SETTINGS, false)
        .phase(10, 500, 0, seconds -> (long) (1000 * seconds))
        .phase(1, 100, 5_000, seconds -> (long) (10_000 * (1 - seconds)))
        .phase(10, 500, 500, AgeAt.flat(150));
    assertThat(run.everLimited()).isTrue();
    double released = run.releasedAt(10);
    assertThat(released).isBetween(10.0, 15.0);
    assertThat(run.limits.subList((int) (released * 4), run.limits.size())).allMatch(OptionalInt::isEmpty);
  }

  @Test
  void disabledNeverLimitsButAStaticLimitStillApplies() {
    ControlSettings off = with(false, Mode.TIME, SETTINGS.acceptableBacklog(), 300);
    Run run = new Run(off, false).phase(15, 500, 0, seconds -> (long) (1000 * seconds));
    assertThat(run.everLimited()).isFalse();
    assertThat(WriteRateController.effective(off, run.last())).hasValue(300);
    assertThat(WriteRateController.effective(with(true, Mode.TIME, SETTINGS.acceptableBacklog(), 300),
        OptionalInt.of(500))).as("the lower of the two").hasValue(300);
  }

  /** The defaults with these values changed. */
  private static ControlSettings with(boolean enabled, Mode mode, long acceptableBacklog, int writeLimit) {
    ControlSettings d = SETTINGS;
    return new ControlSettings(enabled, mode, d.maxExportLag(), acceptableBacklog, d.minWriteRate(), d.resolution(),
        writeLimit, d.window(), d.warmUp());
  }
}
