package dev.flowpipe.node.config;

import dev.flowpipe.settings.SettingRules;
import java.time.Duration;

/** Validation for the configuration records: each failure names the full property key and the value. */
final class Check {

  private Check() {}

  static int atLeast(String key, int value, int min) {
    if (value < min) {
      throw new IllegalArgumentException(key + " must be >= " + min + ", was " + value);
    }
    return value;
  }

  static int between(String key, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(key + " must be between " + min + " and " + max + ", was " + value);
    }
    return value;
  }

  static int port(String key, int value, boolean zeroAllowed) {
    if (value < (zeroAllowed ? 0 : 1) || value > 65535) {
      throw new IllegalArgumentException(
          key + " must be a port " + (zeroAllowed ? "0 (any free port) " : "") + "up to 65535, was " + value);
    }
    return value;
  }

  static Duration positive(String key, Duration value) {
    return SettingRules.positive(key, value); // the rule the web app and the store connection share
  }

  static String notBlank(String key, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(key + " must not be empty, was '" + value + "'");
    }
    return value;
  }
}
