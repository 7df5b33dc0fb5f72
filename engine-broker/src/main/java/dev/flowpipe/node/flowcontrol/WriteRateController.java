package dev.flowpipe.node.flowcontrol;

import dev.flowpipe.node.config.FlowControlProperties;
import dev.flowpipe.node.config.FlowControlProperties.Mode;
import java.util.OptionalInt;

/**
 * Turns one partition's lag into a write rate limit, once per tick. The export rate is the feed-forward: writes
 * limited to exactly what the store absorbs keep the lag where it is; the lag's distance from the target moves the
 * limit above or below that (proportional and integral terms, together at most the export rate itself), so the lag
 * settles at the target rather than beside it.
 * The limit never drops below {@code min-write-rate}. Throttling starts once the lag passes half the target and ends
 * when the lag has stayed under a quarter of it for a second with writes below the limit, which restores the full
 * rate.
 *
 * <p>Not thread-safe: one instance per partition, driven by one thread.
 */
final class WriteRateController {

  static final double GAIN = 1.0;
  /** Per second: a lag off target by a whole target for a second moves the limit by half the export rate. */
  static final double INTEGRAL_GAIN = 0.5;
  static final double ENGAGE_AT = 0.5;
  static final double RELEASE_BELOW = 0.25;

  private boolean throttling;
  private long calmNanos;
  private double integral;

  /** The controller's limit for this tick in records per second, or empty for no limit from the controller. */
  OptionalInt next(FlowControlProperties settings, PartitionLag lag) {
    if (!settings.enabled()) {
      release();
      return OptionalInt.empty();
    }
    double target = settings.mode() == Mode.TIME ? settings.maxExportLag().toMillis() : settings.acceptableBacklog();
    double observed = settings.mode() == Mode.TIME ? lag.age().toMillis() : lag.backlog();
    if (!throttling && observed < ENGAGE_AT * target) {
      return OptionalInt.empty();
    }
    double error = Math.max(-1, Math.min(1, (target - observed) / target));
    long tick = settings.resolution().toNanos();
    // bounded, so a long stretch at the floor does not wind it up
    integral = Math.max(-1, Math.min(1, integral + INTEGRAL_GAIN * error * tick / 1e9));
    double correction = Math.max(-1, Math.min(1, GAIN * error + integral));
    double limit = Math.max(settings.minWriteRate(), lag.exportRate() * (1 + correction));
    if (throttling && observed < RELEASE_BELOW * target && lag.writeRate() < 0.8 * limit) {
      calmNanos += tick;
      if (calmNanos >= 1_000_000_000L) {
        release();
        return OptionalInt.empty();
      }
    } else {
      calmNanos = 0;
    }
    throttling = true;
    return OptionalInt.of((int) Math.min(Integer.MAX_VALUE, Math.ceil(limit)));
  }

  private void release() {
    throttling = false;
    calmNanos = 0;
    integral = 0;
  }

  boolean throttling() {
    return throttling;
  }

  /** The limit to apply: the controller's, capped by the static {@code write-limit} if one is set. */
  static OptionalInt effective(FlowControlProperties settings, OptionalInt controlled) {
    if (settings.writeLimit() <= 0) {
      return controlled;
    }
    return OptionalInt.of(
        controlled.isPresent() ? Math.min(controlled.getAsInt(), settings.writeLimit()) : settings.writeLimit());
  }
}
