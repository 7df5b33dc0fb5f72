package dev.flowpipe.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class LimiterGainTest {

  private static final long TICK = 250_000_000L;

  /** Ticks of 250 ms, each writing {@code perSecond} records/s under {@code limit}; returns the time reached. */
  private static long write(LimiterGain gain, long from, double seconds, double perSecond, OptionalInt limit,
      long[] position) {
    long nanos = from;
    for (int i = 0; i < seconds * 4; i++) {
      nanos += TICK;
      position[0] += (long) (perSecond / 4);
      gain.observe(nanos, position[0], limit);
    }
    return nanos;
  }

  @Test
  void isTheRecordsWrittenPerUnitOfTheLimitWhileItBinds() {
    LimiterGain gain = new LimiterGain();
    write(gain, 0, 30, 144, OptionalInt.of(100), new long[] {0});

    assertThat(gain.value()).isCloseTo(1.44, within(0.01));
  }

  @Test
  void staysOneBeforeFiveSecondsOfLimitedWritingAndWithoutALimit() {
    LimiterGain gain = new LimiterGain();
    long[] position = {0};
    long nanos = write(gain, 0, 60, 400, OptionalInt.empty(), position);
    assertThat(gain.value()).as("no limit in force").isEqualTo(1);

    write(gain, nanos, 4, 144, OptionalInt.of(100), position);
    assertThat(gain.value()).as("4 s of a limit").isEqualTo(1);
  }

  @Test
  void aLimitThatDoesNotBindSaysNothingAboutTheLimiter() {
    LimiterGain gain = new LimiterGain();
    write(gain, 0, 30, 50, OptionalInt.of(100), new long[] {0});

    assertThat(gain.value()).isEqualTo(1);
  }

  @Test
  void followsTheLastTwentySecondsAndStartsAnewWithANewLeader() {
    LimiterGain gain = new LimiterGain();
    long[] position = {0};
    long nanos = write(gain, 0, 30, 180, OptionalInt.of(100), position);
    nanos = write(gain, nanos, 25, 120, OptionalInt.of(100), position);
    assertThat(gain.value()).isCloseTo(1.2, within(0.02));

    gain.reset();
    write(gain, nanos, 3, 180, OptionalInt.of(100), position);
    assertThat(gain.value()).isEqualTo(1);
  }

  @Test
  void aJumpOfTheLogPositionIsNotBelievedPastTwice() {
    LimiterGain gain = new LimiterGain();
    write(gain, 0, 30, 10_000, OptionalInt.of(100), new long[] {0});

    assertThat(gain.value()).isEqualTo(LimiterGain.MAX);
  }
}
