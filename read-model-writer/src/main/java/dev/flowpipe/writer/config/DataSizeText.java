package dev.flowpipe.writer.config;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses data sizes as people write them in YAML: "512", "64KB", "20MB", "1GB" (binary units, as Spring's {@code DataSize} reads them). */
public final class DataSizeText {

  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KB|MB|GB|TB)?", Pattern.CASE_INSENSITIVE);

  private DataSizeText() {}

  /** @throws IllegalArgumentException naming {@code key} and the value when it is not a size */
  public static long parse(String key, Object value) {
    if (value instanceof Number number) {
      return number.longValue();
    }
    Matcher matcher = SIZE.matcher(value == null ? "" : value.toString().trim());
    if (!matcher.matches()) {
      throw new IllegalArgumentException(key + " must be a size such as 512KB or 20MB, was '" + value + "'");
    }
    long amount = Long.parseLong(matcher.group(1));
    String unit = matcher.group(2) == null ? "B" : matcher.group(2).toUpperCase();
    return switch (unit) {
      case "KB" -> amount * 1024;
      case "MB" -> amount * 1024 * 1024;
      case "GB" -> amount * 1024 * 1024 * 1024;
      case "TB" -> amount * 1024 * 1024 * 1024 * 1024;
      default -> amount;
    };
  }
}
