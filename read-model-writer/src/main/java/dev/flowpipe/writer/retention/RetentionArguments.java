package dev.flowpipe.writer.retention;

import dev.flowpipe.writer.config.DurationText;
import dev.flowpipe.schema.retention.RetentionSettings;
import java.util.Map;

/**
 * The exporter's retention arguments (ADR 0011), read apart from {@code ExporterConfiguration}: without
 * {@value #KEEP} retention is off and documents go where they always went.
 */
public final class RetentionArguments {

  /** How long a finished instance is kept, e.g. {@code 30d}; absent: keep everything. */
  public static final String KEEP = "retention-keep";
  /** The width of one period index, e.g. {@code 1d} (whole seconds). */
  public static final String PERIOD = "retention-period";
  /** How often the sweep looks for periods to delete (used where the sweep runs). */
  public static final String CHECK_INTERVAL = "retention-check-interval";

  private RetentionArguments() {}

  public static RetentionSettings fromArguments(Map<String, Object> args) {
    Object keep = args.get(KEEP);
    return RetentionSettings.of(new RetentionSettings.Keys(KEEP, PERIOD, CHECK_INTERVAL),
        keep == null || keep.toString().isBlank() ? null : DurationText.parse(KEEP, keep),
        DurationText.parse(PERIOD, args.getOrDefault(PERIOD, "1d")),
        DurationText.parse(CHECK_INTERVAL, args.getOrDefault(CHECK_INTERVAL, "10m")));
  }
}
