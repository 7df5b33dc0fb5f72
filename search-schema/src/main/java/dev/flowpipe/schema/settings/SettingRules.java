package dev.flowpipe.schema.settings;

import java.time.Duration;

/**
 * Rules every settings record shares (the node's, the web app's, the store connection's), written once: each failure
 * names the full key and the value as a user would write it.
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

  /** A duration as messages show it, in milliseconds ({@code 5000ms}), the form Spring prints by default. */
  public static String print(Duration value) {
    return value == null ? null : value.toMillis() + "ms";
  }
}
