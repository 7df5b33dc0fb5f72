package dev.flowpipe.importer.merge;

import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Up to which log position every record of a partition is searchable, for every value type at once.
 *
 * <p>Why it is needed: the stock exporter writes each value type to indices of its own, and each index becomes
 * searchable at its own refresh. The counters of one value type show a record of that type that is not searchable yet
 * once a later one of the same type is; they say nothing about a record of another type. Records of different types
 * change the same documents (an incident marks its process instance), and the read model must apply them in log order,
 * so a partition's types are merged by position, and the merge must know that no record below a position is still
 * coming.
 *
 * <p>How: a probe takes the highest position searchable now, {@code M}, and then lists the bulk requests the store is
 * running. The stock exporter sends its bulks one after another and each only after the previous one was written, so
 * every record below {@code M} was written before, or in the same bulk as, the record at {@code M}; that bulk has ended
 * before the listing or is in it. Once every listed bulk has ended (the store answers a bulk only when all its items are
 * written, on every shard) and the partition's indices have been refreshed, every record up to {@code M} is searchable:
 * the watermark is complete. A store that does not let the importer list its tasks leaves only {@code grace}, a time
 * in which a bulk's items are assumed to land (on a store loaded so that a bulk takes longer, records can then come
 * late). (The exception: a bulk the store applied only in part, which the stock exporter writes again later. Its
 * missing records of one type show as a hole below a later record of that type, which stops the merge; only missing
 * records that were the newest of their type can arrive after the merge passed them, and the importer counts and logs
 * those as late.)
 */
public final class VisibilityWatermark {

  /** How soon to ask again whether the awaited bulks have ended, once the grace has passed. */
  static final long WRITES_RECHECK_MILLIS = 10;

  private final long graceMillis;
  private final Set<String> awaitedWrites = new HashSet<>();
  private long pendingPosition = -1;
  private long pendingReadyMillis;
  private long completePosition = -1;
  private long completedAtMillis = -1;

  public VisibilityWatermark(Duration grace) {
    if (grace.isNegative()) {
      throw new IllegalArgumentException("grace must be >= 0, was " + grace);
    }
    this.graceMillis = grace.toMillis();
  }

  /** Whether a probe should be taken: none is waiting for its grace. */
  public boolean probeDue() {
    return pendingPosition < 0;
  }

  /**
   * A probe found {@code position} the highest searchable at {@code probeMillis} (-1: nothing searchable), and then
   * the store was running the bulk requests {@code writesInFlight} (their task ids), or could not say (empty): then the
   * grace stands for their end.
   */
  public void probed(long position, Optional<Set<String>> writesInFlight, long probeMillis) {
    if (position > completePosition) {
      pendingPosition = position;
      pendingReadyMillis = writesInFlight.isPresent() ? probeMillis : probeMillis + graceMillis;
      awaitedWrites.clear();
      writesInFlight.ifPresent(awaitedWrites::addAll);
    }
  }

  /** Whether the pending probe may complete: check {@link #writesEnded}, refresh, then call {@link #completed}. */
  public boolean completionDue(long nowMillis) {
    return pendingPosition >= 0 && nowMillis >= pendingReadyMillis;
  }

  /** Whether the bulks in flight at the probe have all ended, given the ones the store is running now. */
  public boolean writesEnded(Set<String> runningNow) {
    awaitedWrites.retainAll(runningNow);
    return awaitedWrites.isEmpty();
  }

  /** Whether bulks in flight at the pending probe may still be running. */
  public boolean awaitsWrites() {
    return !awaitedWrites.isEmpty();
  }

  /** Millis until {@link #completionDue}, or until it is worth asking again about the awaited bulks (Long.MAX_VALUE when nothing is pending). */
  public long millisUntilCompletion(long nowMillis) {
    if (pendingPosition < 0) {
      return Long.MAX_VALUE;
    }
    long untilGrace = Math.max(0, pendingReadyMillis - nowMillis);
    return untilGrace == 0 && awaitsWrites() ? WRITES_RECHECK_MILLIS : untilGrace;
  }

  /** The indices were refreshed after the grace: reads started at or after {@code refreshedAtMillis} see it all. */
  public void completed(long refreshedAtMillis) {
    completePosition = Math.max(completePosition, pendingPosition);
    completedAtMillis = refreshedAtMillis;
    pendingPosition = -1;
    awaitedWrites.clear();
  }

  /** Every record up to here is searchable to reads started at or after {@link #completedAtMillis()}; -1: none. */
  public long completePosition() {
    return completePosition;
  }

  public long completedAtMillis() {
    return completedAtMillis;
  }
}
