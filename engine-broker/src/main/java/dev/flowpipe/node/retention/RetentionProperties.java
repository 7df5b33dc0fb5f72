package dev.flowpipe.node.retention;

import dev.flowpipe.writer.retention.RetentionArguments;
import dev.flowpipe.schema.retention.RetentionSettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Retention of finished instances (ADR 0011). Off unless {@code keep} is set: then every document is kept, as before.
 *
 * @param keep how long after its end a finished instance is kept, e.g. 30d; unset: keep everything
 * @param period the width of one period index, whole seconds (a day; seconds only for tests)
 * @param checkInterval how often the node looks for periods to delete
 */
@ConfigurationProperties("flowpipe.retention")
public record RetentionProperties(
    Duration keep, @DefaultValue("1d") Duration period, @DefaultValue("10m") Duration checkInterval) {

  private static final RetentionSettings.Keys KEYS = new RetentionSettings.Keys(
      "flowpipe.retention.keep", "flowpipe.retention.period", "flowpipe.retention.check-interval");

  public RetentionProperties {
    RetentionSettings.of(KEYS, keep, period, checkInterval);
  }

  public RetentionSettings settings() {
    return RetentionSettings.of(KEYS, keep, period, checkInterval);
  }

  /** The exporter's arguments for the same settings: the exporter routes, the node deletes. */
  public Map<String, Object> exporterArguments() {
    Map<String, Object> args = new LinkedHashMap<>();
    if (keep != null) {
      args.put(RetentionArguments.KEEP, keep.toString());
      args.put(RetentionArguments.PERIOD, period.toString());
      args.put(RetentionArguments.CHECK_INTERVAL, checkInterval.toString());
    }
    return args;
  }
}
