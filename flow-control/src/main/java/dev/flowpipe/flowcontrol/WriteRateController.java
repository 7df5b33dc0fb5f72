package dev.flowpipe.flowcontrol;

import dev.flowpipe.flowcontrol.ControlSettings.Mode;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.function.ToLongFunction;

/**
 * Turns one partition's lag, over a window of samples ({@link LagWindow}), into a write rate limit, once per tick.
 *
 * <p>It throttles only a backlog that is large and growing, never a passing delay:
 * <ul>
 *   <li><b>Engage</b> when, over a whole {@code window}, the signal (the age of the oldest record not yet durable, or
 *       in records mode the backlog) never fell below the target and the backlog grew. During the node's
 *       {@code warm-up} the signal must reach twice the target (a young store is slow at first). In time mode a
 *       backlog of {@code acceptable-backlog} records that grew over the window engages too, whatever the age says
 *       (a backstop, also for a store never reached).
 *   <li><b>Hold</b>: the limit is the window's export rate (what the store absorbs keeps the lag where it is), moved
 *       by the signal's distance from the target (proportional and integral terms), so the lag settles at the target;
 *       divided by the records the broker writes per unit of its limit ({@link LimiterGain}).
 *       It never goes below half the export rate (a catching-up store is not starved) nor below {@code min-write-rate}.
 *   <li><b>Release</b> completely once the signal stayed under half the target for half a window: the full rate
 *       returns. Whether writes are below the limit does not matter (while the limit binds they never are).
 * </ul>
 * No limit before the window has filled once: rates over less than that are not yet true.
 *
 * <p>Not thread-safe: one instance per partition, driven by one thread.
 */
public final class WriteRateController {

  static final double GAIN = 0.6;
  /** Per second: a lag off target by a whole target for a second moves the limit by 15% of the export rate. */
  static final double INTEGRAL_GAIN = 0.15;
  /** The most the limit goes below the export rate, as a share of it. */
  static final double MAX_CUT = 0.5;
  /** The integral term moves only while the signal is within this share of the target from it. */
  static final double INTEGRATE_WITHIN = 0.5;
  static final double RELEASE_BELOW = 0.5;
  static final double WARM_UP_FACTOR = 2.0;

  private boolean throttling;
  private double integral;

  /**
   * The controller's limit for this tick in records per second, or empty for no limit from the controller.
   *
   * @param warmingUp whether the node (or server) is within its warm-up
   */
  public OptionalInt next(ControlSettings settings, LagWindow window, boolean warmingUp) {
    return next(settings, window, warmingUp, 1);
  }

  /**
   * As {@link #next(ControlSettings, LagWindow, boolean)}, for a broker that writes {@code limiterGain} records per
   * unit of the limit in force ({@link LimiterGain}): the write rate the controller wants, divided by it.
   */
  public OptionalInt next(ControlSettings settings, LagWindow window, boolean warmingUp, double limiterGain) {
    if (!settings.enabled() || !window.full()) {
      release();
      return OptionalInt.empty();
    }
    double target = target(settings);
    ToLongFunction<LagSample> signal = signal(settings);
    if (!throttling) {
      double engageAt = warmingUp ? WARM_UP_FACTOR * target : target;
      boolean sustained = window.min(settings.window(), signal) >= engageAt;
      boolean backstop = settings.mode() == Mode.TIME
          && window.min(settings.window(), LagSample::backlog) >= settings.acceptableBacklog();
      if (!window.backlogGrew() || !(sustained || backstop)) {
        return OptionalInt.empty();
      }
      throttling = true;
    } else if (calm(settings, window, signal, target)) {
      release();
      return OptionalInt.empty();
    }
    double observed = signal.applyAsLong(window.latest());
    double error = Math.max(-1, Math.min(1, (target - observed) / target));
    // integrated only while the lag is near the target on average over the window, so draining a large lag (or
    // filling a small one) does not wind it up and overshoot afterwards; every tick's error counts then, the peaks of
    // a store that acknowledges in bulks too, or the lag would settle above the target; bounded like the correction
    double recent = window.mean(settings.window(), signal);
    if (Math.abs(target - recent) < INTEGRATE_WITHIN * target) {
      integral = Math.max(-MAX_CUT, Math.min(1, integral + INTEGRAL_GAIN * error * settings.resolution().toNanos() / 1e9));
    }
    double correction = Math.max(-MAX_CUT, Math.min(1, GAIN * error + integral));
    double limit = Math.max(settings.minWriteRate(), window.exportRate() * (1 + correction) / limiterGain);
    return OptionalInt.of((int) Math.min(Integer.MAX_VALUE, Math.ceil(limit)));
  }

  private static boolean calm(
      ControlSettings settings, LagWindow window, ToLongFunction<LagSample> signal, double target) {
    Duration span = settings.window().dividedBy(2);
    boolean below = window.max(span, signal) < RELEASE_BELOW * target;
    return below && (settings.mode() == Mode.RECORDS
        || window.max(span, LagSample::backlog) < settings.acceptableBacklog());
  }

  private static double target(ControlSettings settings) {
    return settings.target();
  }

  private static ToLongFunction<LagSample> signal(ControlSettings settings) {
    return settings.mode() == Mode.TIME ? sample -> sample.age().toMillis() : LagSample::backlog;
  }

  public void release() {
    throttling = false;
    integral = 0;
  }

  public boolean throttling() {
    return throttling;
  }

  /** The limit to apply: the controller's, capped by the static {@code write-limit} if one is set. */
  public static OptionalInt effective(ControlSettings settings, OptionalInt controlled) {
    if (settings.writeLimit() <= 0) {
      return controlled;
    }
    return OptionalInt.of(
        controlled.isPresent() ? Math.min(controlled.getAsInt(), settings.writeLimit()) : settings.writeLimit());
  }
}
