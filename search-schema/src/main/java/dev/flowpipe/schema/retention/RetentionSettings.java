package dev.flowpipe.schema.retention;

import java.time.Duration;

/**
 * How long finished instances are kept (ADR 0009). Off ({@code keep} null) keeps everything: the default.
 *
 * @param keep how long after its end a finished instance is kept; null for off
 * @param period the width of one period index (whole seconds; a day in production, seconds in tests)
 * @param checkInterval how often the sweep looks for periods to delete
 */
public record RetentionSettings(Duration keep, Duration period, Duration checkInterval) {

  public static final Duration DEFAULT_PERIOD = Duration.ofDays(1);
  public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofMinutes(10);

  public RetentionSettings {
    if (keep != null && (keep.isNegative() || keep.isZero())) {
      throw new IllegalArgumentException("retention.keep must be positive, was " + keep);
    }
    if (period == null || period.compareTo(Duration.ofSeconds(1)) < 0 || period.getNano() != 0) {
      throw new IllegalArgumentException("retention.period must be whole seconds, at least 1s, was " + period);
    }
    if (checkInterval == null || checkInterval.isNegative() || checkInterval.isZero()) {
      throw new IllegalArgumentException("retention.check-interval must be positive, was " + checkInterval);
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
