package dev.flowpipe.flowcontrol;

import static dev.flowpipe.settings.SettingRules.positive;
import static dev.flowpipe.settings.SettingRules.print;

import java.time.Duration;
import java.util.Locale;

/**
 * What the {@link WriteRateController} holds and how: the node binds these from {@code flowpipe.flow-control.*}, the
 * server from {@code flowpipe.server.flow-control.*}; both hand them in validated. Messages name the key below the
 * prefix ({@code max-export-lag}...) so that each binder can put its own prefix in front.
 *
 * @param enabled run the lag controller; off, only {@code write-limit} (if set) limits writes
 * @param mode what the controller holds at its target: the age of the oldest record not yet durable ({@code TIME},
 *     target {@code maxExportLag}) or the number of records not yet durable ({@code RECORDS}, target
 *     {@code acceptableBacklog})
 * @param maxExportLag target of the time mode
 * @param acceptableBacklog target of the records mode, in records; in time mode a backstop
 * @param minWriteRate the controller never limits writes below this many records per second
 * @param resolution how often the controller measures and adjusts
 * @param writeLimit a static limit, records per second, on top of the controller; 0 for none
 * @param window the span over which rates are measured and the decision to engage is taken
 * @param warmUp after the start, how long the lag must reach twice the target before the controller engages
 */
public record ControlSettings(
    boolean enabled, Mode mode, Duration maxExportLag, long acceptableBacklog, int minWriteRate, Duration resolution,
    int writeLimit, Duration window, Duration warmUp) {

  /** The signal the controller holds at its target. */
  public enum Mode {
    TIME,
    RECORDS;

    /** Parses "time" or "records" in any case, naming the key on failure. */
    public static Mode parse(String key, String text) {
      try {
        return valueOf(text.trim().toUpperCase(Locale.ROOT));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(key + " must be 'time' or 'records', was '" + text + "'");
      }
    }
  }

  public ControlSettings {
    if (mode == null) {
      throw new IllegalArgumentException("mode must be 'time' or 'records', was null");
    }
    positive("max-export-lag", maxExportLag);
    if (resolution == null || resolution.compareTo(Duration.ofMillis(10)) < 0
        || resolution.compareTo(Duration.ofSeconds(10)) > 0) {
      throw new IllegalArgumentException("resolution must be between 10ms and 10s, was " + print(resolution));
    }
    if (acceptableBacklog < 1) {
      throw new IllegalArgumentException("acceptable-backlog must be >= 1, was " + acceptableBacklog);
    }
    if (minWriteRate < 1) {
      throw new IllegalArgumentException("min-write-rate must be >= 1, was " + minWriteRate);
    }
    if (writeLimit < 0) {
      throw new IllegalArgumentException("write-limit must be >= 0, was " + writeLimit);
    }
    if (window == null || window.compareTo(Duration.ofSeconds(1)) < 0 || window.compareTo(Duration.ofMinutes(1)) > 0
        || window.compareTo(resolution.multipliedBy(2)) < 0) {
      throw new IllegalArgumentException("window must be between 1s and 1m and at least twice the resolution ("
          + print(resolution) + "), was " + print(window));
    }
    if (warmUp == null || warmUp.isNegative() || warmUp.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("warm-up must be between 0s and 1h, was " + print(warmUp));
    }
  }

  /** The node's and the server's defaults: time mode, 2 s target, 5 s window, floor 100 records/s. */
  public static ControlSettings defaults() {
    return new ControlSettings(true, Mode.TIME, Duration.ofSeconds(2), 100_000, 100, Duration.ofMillis(250), 0,
        Duration.ofSeconds(5), Duration.ofSeconds(60));
  }

  /** The target of the mode: milliseconds of age, or records of backlog. */
  double target() {
    return mode == Mode.TIME ? maxExportLag.toMillis() : acceptableBacklog;
  }
}
