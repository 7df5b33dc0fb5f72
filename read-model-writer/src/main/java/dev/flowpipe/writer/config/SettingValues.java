package dev.flowpipe.writer.config;

import dev.flowpipe.settings.SettingRules;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Reads typed values from a flat map of settings (the exporter's arguments, the importer's properties), each under
 * {@code prefix} + its key, with that full key and the value in every message. Durations and sizes take the textual
 * forms Spring binds for the node and the web app ({@link DurationText}, {@link DataSizeText}), so one value reads the
 * same wherever it is written.
 *
 * @param values the settings, full keys
 * @param prefix what every key is written under ({@code flowpipe.importer.}; empty for the exporter's arguments)
 */
public record SettingValues(Map<String, ?> values, String prefix) {

  public SettingValues {
    prefix = prefix == null ? "" : prefix;
  }

  /** The full key of {@code key}, as messages name it. */
  public String key(String key) {
    return prefix + key;
  }

  public Object raw(String key, Object fallback) {
    Object value = values.get(prefix + key);
    return value == null ? fallback : value;
  }

  /** The value's text; blank counts as absent. */
  public String text(String key, String fallback) {
    Object value = values.get(prefix + key);
    return value == null || value.toString().isBlank() ? fallback : value.toString();
  }

  public Duration duration(String key, String fallback) {
    return DurationText.parse(prefix + key, raw(key, fallback));
  }

  /** A duration, or null when the setting is absent (the consumer has the default). */
  public Duration durationOrNull(String key) {
    Object value = values.get(prefix + key);
    return value == null ? null : DurationText.parse(prefix + key, value);
  }

  public long bytes(String key, String fallback) {
    return DataSizeText.parse(prefix + key, raw(key, fallback));
  }

  public int integer(String key, int fallback) {
    Object value = raw(key, fallback);
    if (value instanceof Number number) {
      return number.intValue();
    }
    try {
      return Integer.parseInt(value.toString().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(prefix + key + " must be a whole number, was '" + value + "'", e);
    }
  }

  public boolean bool(String key, boolean fallback) {
    Object value = raw(key, fallback);
    if (value instanceof Boolean bool) {
      return bool;
    }
    return switch (value.toString().trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(prefix + key + " must be true or false, was '" + value + "'");
    };
  }

  /** Fails naming the full key unless {@code min <= value <= max}. */
  public int between(String key, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          prefix + key + " must be " + (max == Integer.MAX_VALUE ? ">= " + min : "between " + min + " and " + max)
              + ", was " + value);
    }
    return value;
  }

  /** Fails naming the full key unless {@code value} is longer than zero. */
  public Duration positive(String key, Duration value) {
    return SettingRules.positive(prefix + key, value);
  }
}
