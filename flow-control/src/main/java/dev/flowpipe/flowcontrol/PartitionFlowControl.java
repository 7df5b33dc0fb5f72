package dev.flowpipe.flowcontrol;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.UnaryOperator;

/**
 * One partition's control loop, the same in the node and the server: each tick a {@link LagReading} goes into the
 * partition's {@link LagWindow}, the {@link WriteRateController} decides a limit (capped by the static
 * {@code write-limit}), and the limit is handed out to be applied only when applying it is worth it. Applying a limit
 * makes a Zeebe broker build a new rate limiter, which loses its burst credit, so a limit is applied rarely: when
 * throttling starts or ends, when it moved by more than {@link #APPLY_CHANGE} and at least {@link #APPLY_INTERVAL}
 * after the last one, and whenever the partition changed leader (a new leader builds its limiter from its own
 * configuration, so whatever was in force is gone).
 *
 * <p>Its fields are written by one control thread; the report's are read from others.
 */
public final class PartitionFlowControl {

  /** A limit that moved by less than this share of the one in force is not applied. */
  public static final double APPLY_CHANGE = 0.1;
  /** Limits in force stay at least this long, unless throttling starts or ends. */
  public static final Duration APPLY_INTERVAL = Duration.ofMillis(500);

  private final int partitionId;
  private final LagWindow window;
  private final WriteRateController controller = new WriteRateController();
  private volatile PartitionLag lag;
  private volatile OptionalInt applied = OptionalInt.empty();
  private final LimiterGain limiterGain = new LimiterGain();
  private volatile boolean leading;
  private long appliedAtNanos;
  // a limit that must be put in force (a new leader) until an apply succeeds
  private boolean mustApply;

  public PartitionFlowControl(int partitionId, Duration window) {
    this.partitionId = partitionId;
    this.window = new LagWindow(window);
  }

  /** What changed in the partition's leadership since the last reading. */
  public enum Leadership {
    /** The same leader. */
    SAME,
    /**
     * Another leader, on the same log as the readings so far (a controller beside the cluster reads every leader, and
     * positions are the same on every replica): the window goes on, the limit is applied again on the new leader.
     */
    NEW_LEADER,
    /** Another leader whose positions start anew for this reader (the node that took over): the window restarts. */
    TAKEN_OVER
  }

  /**
   * One tick with a reading of the partition's lag.
   *
   * @param nanos now, on a monotonic clock
   * @param leadership what changed in the partition's leadership since the last reading
   * @param hold a last say over the limit (the node's disk pressure), or {@code UnaryOperator.identity()}
   * @return the limit to apply now (empty inside: no limit), or empty when the one in force stays
   */
  public Optional<OptionalInt> tick(LagReading reading, Leadership leadership, ControlSettings settings,
      boolean warmingUp, UnaryOperator<OptionalInt> hold, long nanos) {
    boolean restart = leadership == Leadership.TAKEN_OVER || !leading;
    // a new leader's limiter comes from its broker's configuration: whatever was in force is gone
    boolean reapply = restart || leadership == Leadership.NEW_LEADER;
    if (restart) {
      // positions and rates start anew, and the new leader's limiter knows nothing of any limit
      window.clear();
      controller.release();
      limiterGain.reset();
      leading = true;
    }
    limiterGain.observe(nanos, reading.written(), reapply ? OptionalInt.empty() : applied);
    double exportRate = window.full() ? window.exportRate() : 0;
    long backlog = Math.max(0, reading.written() - reading.exported());
    Duration age = reading.oldestPendingAge().orElseGet(() -> estimatedAge(reading, backlog, exportRate, settings, nanos));
    window.add(new LagSample(nanos, reading.written(), reading.exported(), age), settings.window());
    lag = PartitionLag.of(partitionId, window);
    OptionalInt limit =
        hold.apply(WriteRateController.effective(settings, controller.next(settings, window, warmingUp, limiterGain.value())));
    mustApply |= reapply;
    if (mustApply || worthApplying(limit, nanos)) {
      return Optional.of(limit);
    }
    return Optional.empty();
  }

  /**
   * The oldest pending record's age where the source knows none (positions only): the time since the window first saw
   * the log written past the exported position, which drops as soon as the store catches up. Where that was before the
   * window's first sample (or there is none yet), the backlog over the export rate, at least the window's span.
   */
  private Duration estimatedAge(LagReading reading, long backlog, double exportRate, ControlSettings settings,
      long nanos) {
    if (backlog == 0) {
      return Duration.ZERO;
    }
    java.util.OptionalLong firstSeen = window.firstWrittenPast(reading.exported());
    if (!window.isEmpty() && firstSeen.isEmpty()) {
      return Duration.ofNanos(Math.max(0, nanos - window.latestNanos())); // written since the last reading
    }
    if (firstSeen.isPresent() && firstSeen.getAsLong() > window.oldestNanos()) {
      return Duration.ofNanos(Math.max(0, nanos - firstSeen.getAsLong()));
    }
    long fromRate = (long) (1000.0 * backlog / Math.max(settings.minWriteRate(), exportRate));
    long sinceWindowStart = window.isEmpty() ? 0 : (nanos - window.oldestNanos()) / 1_000_000;
    return Duration.ofMillis(Math.max(fromRate, sinceWindowStart));
  }

  /** The limit was put in force (called after a successful apply). */
  public void applied(OptionalInt limit, long nanos) {
    applied = limit;
    appliedAtNanos = nanos;
    mustApply = false;
  }

  /**
   * The limit handed out by the last tick could not be put in force: the next tick hands out its limit whatever it is,
   * as after a leader change, since what the broker holds is not known.
   */
  public void notApplied() {
    mustApply = true;
  }

  /** The partition has no leader within reach (or not here): its report is empty until a leader is seen again. */
  public void lostLeader() {
    leading = false;
    lag = null;
  }

  /** Throttling starts or ends, or the limit moved by enough and the one in force has stood long enough. */
  private boolean worthApplying(OptionalInt limit, long nanos) {
    OptionalInt before = applied;
    if (before.isPresent() != limit.isPresent()) {
      return true;
    }
    if (before.isEmpty()) {
      return false;
    }
    return Math.abs(limit.getAsInt() - before.getAsInt()) > APPLY_CHANGE * before.getAsInt()
        && nanos - appliedAtNanos >= APPLY_INTERVAL.toNanos();
  }

  public int partitionId() {
    return partitionId;
  }

  /** The latest lag with the window's rates, or null while no leader is seen. */
  public PartitionLag lag() {
    return lag;
  }

  /** The limit last put in force (empty: none). */
  public OptionalInt appliedLimit() {
    return applied;
  }

  public boolean leading() {
    return leading;
  }

  public boolean throttling() {
    return leading && controller.throttling();
  }

  /** The window's export rate once it is full (0 before): for estimating an age where the source has none. */
  public double exportRate() {
    return window.full() ? window.exportRate() : 0;
  }
}
