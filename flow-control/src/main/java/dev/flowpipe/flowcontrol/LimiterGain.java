package dev.flowpipe.flowcontrol;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.OptionalInt;

/**
 * How many records a partition's leader writes per unit of the write limit in force, measured while one was: Zeebe's
 * limiter counts requests, and the records that processing them writes share it (the stock brokers wrote about 1.44
 * records per unit, the embedded one 1.15-1.2). The controller divides the write rate it wants by this, so the lag
 * settles at the target instead of where its proportional term alone balances the excess (up to 60% above, in closed
 * loop with a limiter letting through 1.45x).
 *
 * <p>Only a ratio above 1 is kept: below it, the limit did not bind (clients offered less than it allowed), which says
 * nothing about the limiter. Not thread-safe: driven by its partition's loop.
 */
final class LimiterGain {

  /** The largest ratio believed; a larger one is a reading error (a log position jump), not a limiter. */
  static final double MAX = 2.0;
  /** The span of limited writing the ratio is taken over. */
  static final long SPAN_NANOS = 20_000_000_000L;
  /** The least span of limited writing before the ratio counts at all. */
  static final long MIN_SPAN_NANOS = 5_000_000_000L;

  /** The time between two readings with a limit in force: records written, records the limit allowed. */
  private record Interval(double written, double allowed, long nanos) {}

  private final Deque<Interval> intervals = new ArrayDeque<>();
  private double written;
  private double allowed;
  private long spanNanos;
  private long lastNanos = -1;
  private long lastWritten;

  /**
   * A reading of the log's written position at {@code nanos}; {@code inForce} is the limit that held since the last
   * reading.
   */
  void observe(long nanos, long writtenPosition, OptionalInt inForce) {
    if (lastNanos >= 0 && inForce.isPresent() && inForce.getAsInt() > 0 && writtenPosition >= lastWritten
        && nanos > lastNanos) {
      long interval = nanos - lastNanos;
      add(new Interval(writtenPosition - lastWritten, inForce.getAsInt() * interval / 1e9, interval));
    }
    lastNanos = nanos;
    lastWritten = writtenPosition;
  }

  private void add(Interval interval) {
    intervals.addLast(interval);
    written += interval.written();
    allowed += interval.allowed();
    spanNanos += interval.nanos();
    while (spanNanos - intervals.peekFirst().nanos() >= SPAN_NANOS) {
      Interval old = intervals.removeFirst();
      written -= old.written();
      allowed -= old.allowed();
      spanNanos -= old.nanos();
    }
  }

  /** Records written per unit of the limit: 1 until enough limited writing was seen, at most {@link #MAX}. */
  double value() {
    if (spanNanos < MIN_SPAN_NANOS || allowed <= 0) {
      return 1;
    }
    return Math.max(1, Math.min(MAX, written / allowed));
  }

  /** A new leader: its limiter and its log positions start anew. */
  void reset() {
    intervals.clear();
    written = 0;
    allowed = 0;
    spanNanos = 0;
    lastNanos = -1;
  }
}
