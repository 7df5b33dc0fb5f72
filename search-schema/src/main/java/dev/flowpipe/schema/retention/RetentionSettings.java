package dev.flowpipe.schema.retention;

import java.time.Duration;

/**
 * How long finished instances are kept (ADR 0011). Off ({@code keep} null) keeps everything: the default.
 *
 * @param keep how long after its end a finished instance is kept; null for off
 * @param period the width of one period index (whole seconds; a day in production, seconds in tests)
 * @param checkInterval how often the sweep looks for periods to delete
 */
public record RetentionSettings(Duration keep, Duration period, Duration checkInterval) {

  public static final Duration DEFAULT_PERIOD = Duration.ofDays(1);
  public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofMinutes(10);

  public RetentionSettings {
    check(new Keys("retention.keep", "retention.period", "retention.check-interval"), keep, period, checkInterval);
  }

  /** The names of the three settings where they are configured, for messages that name them. */
  public record Keys(String keep, String period, String checkInterval) {}

  /** Validated settings whose messages name the keys as the caller's configuration spells them. */
  public static RetentionSettings of(Keys keys, Duration keep, Duration period, Duration checkInterval) {
    check(keys, keep, period, checkInterval);
    return new RetentionSettings(keep, period, checkInterval);
  }

  private static void check(Keys keys, Duration keep, Duration period, Duration checkInterval) {
    if (keep != null && (keep.isNegative() || keep.isZero())) {
      throw new IllegalArgumentException(keys.keep() + " must be positive, was " + keep);
    }
    if (period == null || period.compareTo(Duration.ofSeconds(1)) < 0 || period.getNano() != 0) {
      throw new IllegalArgumentException(keys.period() + " must be whole seconds, at least 1s, was " + period);
    }
    if (checkInterval == null || checkInterval.isNegative() || checkInterval.isZero()) {
      throw new IllegalArgumentException(keys.checkInterval() + " must be positive, was " + checkInterval);
    }
  }

  /** Keeps everything. */
  public static RetentionSettings off() {
    return new RetentionSettings(null, DEFAULT_PERIOD, DEFAULT_CHECK_INTERVAL);
  }

  public boolean enabled() {
    return keep != null;
  }
}
