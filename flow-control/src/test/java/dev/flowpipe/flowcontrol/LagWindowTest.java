package dev.flowpipe.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The window's export rate on traces of a store's acknowledgements, one sample per tick (250 ms), window 5 s. */
class LagWindowTest {

  private static final Duration WINDOW = Duration.ofSeconds(5);
  private static final long TICK_NANOS = 250_000_000L;

  /** Writes 40 records/s; the store acknowledges {@code bulk} records every {@code everyTicks} ticks until a tick. */
  private static List<Double> exportRates(long bulk, int everyTicks, int ackUntilTick, int ticks) {
    LagWindow window = new LagWindow(WINDOW);
    List<Double> rates = new ArrayList<>();
    long exported = 0;
    for (int tick = 1; tick <= ticks; tick++) {
      if (tick % everyTicks == 0 && tick <= ackUntilTick) {
        exported += bulk;
      }
      window.add(new LagSample(tick * TICK_NANOS, 10L * tick + exported, exported, Duration.ZERO), WINDOW);
      rates.add(window.exportRate());
    }
    return rates;
  }

  @Nested
  class AStoreThatAcknowledgesLessOftenThanOnceAWindow {

    // the degraded-store test's timelines: a partition's durable position moved every ~6 s; over a 5 s window that
    // read as 0 records/s between two acknowledgements, and the partition asked for the floor
    @Test
    void readsItsTrueRateAtEveryTickOnceTwoAcknowledgementsAreSeen() {
      // given 216 records acknowledged every 6 s: 36 records/s
      List<Double> rates = exportRates(216, 24, Integer.MAX_VALUE, 240);

      // then from the second acknowledgement on (tick 48), every tick reads 36 records/s
      assertThat(rates.subList(48 - 1, 240)).allSatisfy(rate -> assertThat(rate).isCloseTo(36.0,
          offset(0.01)));
    }

    @Test
    void readsLessAsASilenceLongerThanItsUsualGapGoesOnAndNothingOnceItIsLongerThanTheHorizon() {
      // given the same store, which stops after its fifth acknowledgement (tick 120, 30 s)
      List<Double> rates = exportRates(216, 24, 120, 240);

      // then up to its usual gap (6 s, tick 144) the rate holds; beyond it the overdue silence counts (8.25 s after the
      // last one: 216 records over 8.25 s); after a silence longer than the horizon (15 s), it is 0
      assertThat(rates.get(144 - 1)).isCloseTo(36.0, offset(0.01));
      assertThat(rates.get(153 - 1)).isCloseTo(216 / 8.25, offset(0.01));
      assertThat(rates.get(180 - 1)).isPositive();
      assertThat(rates.get(181 - 1)).isZero();
    }

    @Test
    void whoseGapsGrowReadsTheRateOverTheLastGapAtLeastAWindowLong() {
      // given 216 records every 6 s, then 360 records after a gap of 10 s (tick 144 + 40)
      LagWindow window = new LagWindow(WINDOW);
      long exported = 0;
      for (int tick = 1; tick <= 184 + 36; tick++) {
        if ((tick % 24 == 0 && tick <= 144) || tick == 184) {
          exported += tick == 184 ? 360 : 216;
        }
        window.add(new LagSample(tick * TICK_NANOS, 10L * tick + exported, exported, Duration.ZERO), WINDOW);
      }

      // then 9 s after the last one: 360 records over its 10 s gap, the silence still shorter than that
      assertThat(window.exportRate()).isCloseTo(36.0, offset(0.01));
    }
  }

  @Nested
  class AStoreThatSlowsDown {

    // the node's degraded-store test: a rate measured a window back from the latest acknowledgement reached into the
    // healthy store's records (here 280 records over 5 s and an overdue 0.67 s: 49 records/s), read the slowed store
    // above its rate, and the static limit taken from it was too high to drain the backlog in time
    @Test
    void readsTheSlowRateOnceAWindowHasPassed() {
      // given 50 records a tick (200 records/s) for 10 s, then 40 records every 2 s (20 records/s)
      LagWindow window = new LagWindow(WINDOW);
      long exported = 0;
      for (int tick = 1; tick <= 62; tick++) {
        exported += tick <= 40 ? 50 : (tick % 8 == 0 ? 40 : 0);
        window.add(new LagSample(tick * TICK_NANOS, 60L * tick, exported, Duration.ZERO), WINDOW);
      }

      // then 5.5 s after the slowdown (6 ticks after its last acknowledgement): 80 records over the 4 s between the
      // healthy store's last acknowledgement and the latest
      assertThat(window.exportRate()).isCloseTo(20.0, offset(0.01));
    }
  }

  @Nested
  class AStoreThatAcknowledgesEveryTick {

    @Test
    void readsTheRateOverTheWindow() {
      List<Double> rates = exportRates(5, 1, Integer.MAX_VALUE, 80);

      assertThat(rates.subList(20, 80)).allSatisfy(rate -> assertThat(rate).isCloseTo(20.0,
          offset(0.01)));
    }
  }
}
