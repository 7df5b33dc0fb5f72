package dev.flowpipe.settings;

import java.time.Duration;

/**
 * Rules every settings record shares (the node's, the web app's, the server's, the store connection's, the writer's,
 * the embedded store's, the flow controller's), written once: each failure names the full key and the value as a user
 * would write it.
 */
public final class SettingRules {

  private SettingRules() {}

  /** {@code value}, if it is a positive duration; otherwise a message naming {@code key} and the value. */
  public static Duration positive(String key, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(key + " must be a positive duration, was " + print(value));
    }
    return value;
  }

  /**
   * A duration as the settings write it and as messages show it: whole minutes as {@code 10m}, whole seconds as
   * {@code 5s}, else milliseconds ({@code 250ms}, {@code 0ms}, {@code -5ms}); below a millisecond, ISO-8601. Spring's
   * binding and the exporter's and importer's argument parsers read each form back.
   */
  public static String print(Duration value) {
    if (value == null) {
      return null;
    }
    if (value.getNano() % 1_000_000 != 0) {
      return value.toString();
    }
    long millis = value.toMillis();
    if (millis != 0 && millis % 60_000 == 0) {
      return millis / 60_000 + "m";
    }
    return millis != 0 && millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
  }
}
