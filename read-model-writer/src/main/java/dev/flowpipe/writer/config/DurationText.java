package dev.flowpipe.writer.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses durations as people write them in YAML: "20ms", "1s", "5m", or ISO-8601 ("PT0.25S"): the forms Spring's
 * {@code Duration} binding reads for the node and the web app, so a value reads the same in the exporter's arguments
 * and the importer's properties.
 */
public final class DurationText {

  private static final Pattern SIMPLE = Pattern.compile("([+-]?\\d+)\\s*(ns|us|ms|s|m|h|d)?");

  private DurationText() {}

  /** @throws IllegalArgumentException naming {@code key} and the value when it is not a duration */
  public static Duration parse(String key, Object value) {
    if (value instanceof Duration duration) {
      return duration;
    }
    String text = value == null ? "" : value.toString().trim();
    Matcher simple = SIMPLE.matcher(text.toLowerCase());
    if (simple.matches()) {
      long amount = Long.parseLong(simple.group(1));
      // no unit: milliseconds, as Spring reads it
      return switch (simple.group(2) == null ? "ms" : simple.group(2)) {
        case "ns" -> Duration.ofNanos(amount);
        case "us" -> Duration.ofNanos(amount * 1000);
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        default -> Duration.ofDays(amount);
      };
    }
    try {
      return Duration.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          key + " must be a duration such as 100ms, 1s or PT0.25S, was '" + value + "'", e);
    }
  }
}
