package dev.flowpipe.flowcontrol;

import dev.flowpipe.flowcontrol.PartitionFlowControl.Leadership;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.UnaryOperator;

/**
 * A partition in closed loop with one {@link PartitionFlowControl}, tick by tick (250 ms), built from what the node's
 * degraded-store experiment shows: clients offer more than a slowed store absorbs; the store acknowledges in bulks (a
 * whole bulk at once, then nothing for the bulk's duration), so the oldest pending record's age is a sawtooth; the
 * broker lets through more or fewer records than the limit in force ({@code limiterGain}: processing results share the
 * limiter, and every new limiter starts with a free request).
 *
 * <p>An independent oracle of the controller: the plant knows each record's write time and reports the true age; the
 * mean it reports over a span is what a test compares with the target.
 */
final class SimulatedPartition {

  static final long TICK_NANOS = 250_000_000L;

  private final PartitionFlowControl loop;
  private final ControlSettings settings;
  private final double offeredPerSecond;
  private final double limiterGain;
  private final long bulkRecords;
  private final long bulkNanos;
  private final boolean ageKnown;
  // per tick: the last position written in it and when
  private final Deque<long[]> writes = new ArrayDeque<>();
  private OptionalInt inForce = OptionalInt.empty();
  private long nanos;
  private double written;
  private long exported;
  private long nextAckNanos;
  private double ageMillisSum;
  private long ageTicks;

  /**
   * @param exportPerSecond records per second the store absorbs, acknowledged {@code bulkRecords} at a time
   * @param ageKnown whether the reading carries the oldest pending record's age (the node's exporter) or only
   *     positions (a reader of the store's position marks, beside a stock cluster)
   */
  SimulatedPartition(ControlSettings settings, double offeredPerSecond, double limiterGain, double exportPerSecond,
      long bulkRecords, boolean ageKnown) {
    this.settings = settings;
    this.loop = new PartitionFlowControl(1, settings.window());
    this.offeredPerSecond = offeredPerSecond;
    this.limiterGain = limiterGain;
    this.bulkRecords = bulkRecords;
    this.bulkNanos = (long) (1e9 * bulkRecords / exportPerSecond);
    this.ageKnown = ageKnown;
    this.nextAckNanos = bulkNanos;
  }

  /** Runs {@code seconds}; the controller's limit is applied as soon as the loop hands it out. */
  SimulatedPartition run(double seconds) {
    long ticks = Math.round(seconds * 1e9 / TICK_NANOS);
    for (long i = 0; i < ticks; i++) {
      tick();
    }
    return this;
  }

  /** Forgets the ages seen so far: {@link #meanAgeMillis()} covers what runs from now on. */
  SimulatedPartition measureFromHere() {
    ageMillisSum = 0;
    ageTicks = 0;
    return this;
  }

  double meanAgeMillis() {
    return ageMillisSum / ageTicks;
  }

  long backlog() {
    return (long) written - exported;
  }

  boolean throttling() {
    return loop.throttling();
  }

  private void tick() {
    nanos += TICK_NANOS;
    double rate = inForce.isPresent() ? Math.min(offeredPerSecond, limiterGain * inForce.getAsInt()) : offeredPerSecond;
    written += rate * TICK_NANOS / 1e9;
    writes.addLast(new long[] {(long) written, nanos - TICK_NANOS / 2}); // written over the tick
    while (nanos >= nextAckNanos) {
      exported = Math.min((long) written, exported + bulkRecords);
      nextAckNanos += bulkNanos;
    }
    while (!writes.isEmpty() && writes.peekFirst()[0] <= exported) {
      writes.removeFirst();
    }
    Duration age = writes.isEmpty() ? Duration.ZERO : Duration.ofNanos(nanos - writes.peekFirst()[1]);
    ageMillisSum += age.toMillis();
    ageTicks++;
    LagReading reading = new LagReading((long) written, exported, ageKnown ? Optional.of(age) : Optional.empty());
    loop.tick(reading, Leadership.SAME, settings, false, UnaryOperator.identity(), nanos).ifPresent(limit -> {
      inForce = limit;
      loop.applied(limit, nanos);
    });
  }
}
