package dev.flowpipe.benchmarks.scenario.ramp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.benchmarks.scenario.ramp.RampStep.Verdict;
import dev.flowpipe.benchmarks.load.LoadSettings;
import dev.flowpipe.benchmarks.load.LoadWindow;
import dev.flowpipe.benchmarks.load.LoadResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The ramp's step rules, on made-up windows: 10 s steps, one window per second. */
class RampStepTest {

  @Test
  void aStepWithoutRejectionsThatKeepsUpIsClean() {
    RampStep step = step(20, rejectedIn(), 20);

    assertThat(step.verdict()).isEqualTo(Verdict.CLEAN);
    assertThat(step.endsRamp()).isFalse();
  }

  @Test
  void rejectionsInEachOfTheLastThreeSecondsAreSustainedBackpressureAndEndTheRamp() {
    RampStep step = step(40, rejectedIn(7, 8, 9), 40);

    assertThat(step.verdict()).isEqualTo(Verdict.SUSTAINED_BACKPRESSURE);
    assertThat(step.endsRamp()).isTrue();
  }

  @Test
  void aBurstOfRejectionsTheNodeRecoversFromIsTransientAndTheRampGoesOn() {
    RampStep step = step(30, rejectedIn(2, 3, 4, 8, 9), 30);

    assertThat(step.verdict()).isEqualTo(Verdict.TRANSIENT_BACKPRESSURE);
    assertThat(step.endsRamp()).isFalse();
  }

  @Test
  void completingLessThanNinetyPercentOfTheOfferedRateIsFallingBehind() {
    RampStep step = step(50, rejectedIn(), 44);

    assertThat(step.verdict()).isEqualTo(Verdict.FELL_BEHIND);
    assertThat(step.endsRamp()).isTrue();
  }

  @Test
  void theResultIsTheHighestCleanRate() {
    List<RampStep> steps = List.of(step(10, rejectedIn(), 10), step(20, rejectedIn(), 20),
        step(30, rejectedIn(4), 30), step(40, rejectedIn(7, 8, 9), 40));

    assertThat(RampStep.highestCleanRate(steps)).isEqualTo(20);
    assertThat(RampStep.highestCleanRate(List.of(step(10, rejectedIn(5, 6), 10)))).isZero();
  }

  @Test
  void rampSettingsNameTheBadValue() {
    assertThatThrownBy(() -> ThroughputRamp.Settings.parse(List.of("10", "10", "4")))
        .hasMessage("step seconds must be >= 6 (the backpressure rule reads the last 3 seconds), was 4.0");
    assertThatThrownBy(() -> ThroughputRamp.Settings.parse(List.of("--flow-control=maybe")))
        .hasMessage("flow-control must be on, off or both, was 'maybe'");
    assertThatThrownBy(() -> ThroughputRamp.Settings.parse(List.of("0")))
        .hasMessage("start rate must be > 0 PI/s, was 0.0");
    assertThat(ThroughputRamp.Settings.parse(List.of("5", "15", "30", "--payload=2KB")).load().payloadBytes())
        .isEqualTo(2048);
  }

  private static List<Integer> rejectedIn(Integer... seconds) {
    return List.of(seconds);
  }

  /** A 10 s step at {@code rate}: every second sends {@code rate} creates, completes {@code completedPerSecond}. */
  private static RampStep step(double rate, List<Integer> secondsWithRejections, long completedPerSecond) {
    List<LoadWindow> windows = new ArrayList<>();
    for (int s = 0; s < 10; s++) {
      long rejected = secondsWithRejections.contains(s) ? 2 : 0;
      windows.add(new LoadWindow(s, (long) rate, (long) rate - rejected, rejected, 0, 0, completedPerSecond,
          completedPerSecond, 0, 0, 10, 20, 30, 40, 100, 5));
    }
    LoadSettings settings = LoadSettings.defaults().withRate(rate).withDuration(Duration.ofSeconds(10));
    return new RampStep(rate, new LoadResult(settings, "load", windows, 10, new Histogram(3), Map.of(), Map.of(), 0), 0);
  }
}
