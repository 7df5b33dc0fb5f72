package dev.flowpipe.benchmarks.report;

import java.util.List;
import java.util.Locale;

/**
 * What a report's figure counts. The JSON keeps the unit in the key (STYLE: units in names, {@code p50Millis},
 * {@code instancesPerSecond}); the markdown writer prints it beside the value.
 */
public enum Unit {
  MILLIS("ms"),
  SECONDS("s"),
  PER_SECOND("/s"),
  BYTES("B"),
  /** Kibibytes, as a node's {@code _nodes/stats} reports its disk writes. */
  KILOBYTES("KiB"),
  PERCENT("%"),
  /** A count, a ratio or a setting: no unit printed. */
  NONE("");

  private static final List<Unit> BY_SUFFIX = List.of(MILLIS, SECONDS, PER_SECOND, KILOBYTES, BYTES, PERCENT);

  private final String symbol;

  Unit(String symbol) {
    this.symbol = symbol;
  }

  public String symbol() {
    return symbol;
  }

  /**
   * The unit a key names by its suffix ({@code storeSearchMillis}, {@code warmUpSeconds}, {@code loadPerSecond},
   * {@code memoryUsageBytes}, {@code cpuPercent}), or {@code null} if it names none.
   */
  public static Unit namedBy(String key) {
    String lower = key.toLowerCase(Locale.ROOT);
    for (Unit unit : BY_SUFFIX) {
      if (unit.suffixes().stream().anyMatch(lower::endsWith)) {
        return unit;
      }
    }
    return null;
  }

  private List<String> suffixes() {
    return switch (this) {
      case MILLIS -> List.of("millis", "ms");
      case SECONDS -> List.of("seconds", "secs");
      case PER_SECOND -> List.of("persecond", "pers");
      case KILOBYTES -> List.of("kilobytes");
      case BYTES -> List.of("bytes");
      case PERCENT -> List.of("percent");
      case NONE -> List.of();
    };
  }
}
