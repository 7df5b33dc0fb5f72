package dev.flowpipe.server.flowcontrol;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When each partition's log reached which position, as its leader's metrics showed it once a tick: from it, how long
 * the oldest record not yet durable has waited, which the store's export marks alone cannot tell. Without it that age
 * was estimated from the backlog over the export rate, and where the store's marks stood still for a window (a store
 * slow enough to take a bulk every few seconds) the export rate was 0 and the estimate the backlog over
 * {@code min-write-rate}: from 12.8 s to 35.5 s within one tick of 250 ms (a true age grows by the tick), which threw
 * the limit to its floor and back.
 *
 * <p>Positions are the same on every replica, so a leader change keeps a partition's times; a position lower than the
 * last (a new log) starts them anew. Kept for {@code horizon}; an older record's time is extrapolated back at the rate
 * the kept times show. Written by the control thread only.
 */
final class AppendTimes {

  /** A position the log had reached at a moment of a monotonic clock. */
  private record Reached(long nanos, long position) {}

  private final long horizonNanos;
  private final Map<Integer, Deque<Reached>> partitions = new ConcurrentHashMap<>();

  AppendTimes(Duration horizon) {
    this.horizonNanos = horizon.toNanos();
  }

  /** The partition's log had reached {@code position} at {@code nanos}. */
  void reached(int partitionId, long position, long nanos) {
    Deque<Reached> times = partitions.computeIfAbsent(partitionId, id -> new ArrayDeque<>());
    Reached last = times.peekLast();
    if (last != null && position < last.position()) {
      times.clear(); // another log: nothing before says when this one's records were written
    }
    if (last != null && position == last.position()) {
      // the log stood still: keep when it reached this position, and move on when it was last seen there (the next
      // records were written after that)
      times.pollLast();
      Reached reachedAt = times.peekLast();
      if (reachedAt == null || reachedAt.position() != position) {
        times.addLast(last);
      }
    }
    times.addLast(new Reached(nanos, position));
    while (times.size() > 2 && nanos - times.peekFirst().nanos() > horizonNanos) {
      times.pollFirst();
    }
  }

  /**
   * How long the first record after {@code durable} has waited at {@code nanos}: zero when the log is durable up to its
   * last position, empty when the times kept cannot tell (fewer than two, or a log that did not move).
   */
  Optional<Duration> oldestPendingAge(int partitionId, long durable, long nanos) {
    Deque<Reached> times = partitions.get(partitionId);
    if (times == null || times.isEmpty()) {
      return Optional.empty();
    }
    if (durable >= times.peekLast().position()) {
      return Optional.of(Duration.ZERO);
    }
    long pending = durable + 1;
    Reached before = null;
    for (Iterator<Reached> it = times.iterator(); it.hasNext(); ) {
      Reached reached = it.next();
      if (reached.position() >= pending) {
        long writtenAt = before == null ? extrapolated(times, pending) : interpolated(before, reached, pending);
        return writtenAt == Long.MIN_VALUE ? Optional.empty()
            : Optional.of(Duration.ofNanos(Math.max(0, nanos - writtenAt)));
      }
      before = reached;
    }
    return Optional.empty(); // not reached: durable is past the last position, handled above
  }

  /** Between two samples, at the rate the log moved between them. */
  private static long interpolated(Reached before, Reached after, long position) {
    double share = (double) (position - before.position()) / (after.position() - before.position());
    return before.nanos() + (long) (share * (after.nanos() - before.nanos()));
  }

  /** Before the first sample, at the rate of all kept; {@code Long.MIN_VALUE} when they show no rate. */
  private static long extrapolated(Deque<Reached> times, long position) {
    Reached first = times.peekFirst();
    Reached last = times.peekLast();
    if (last.nanos() <= first.nanos() || last.position() <= first.position()) {
      return Long.MIN_VALUE;
    }
    double nanosPerPosition = (double) (last.nanos() - first.nanos()) / (last.position() - first.position());
    return first.nanos() - (long) ((first.position() - position) * nanosPerPosition);
  }
}
