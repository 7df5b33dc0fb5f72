package dev.flowpipe.node.config;

import dev.flowpipe.flowcontrol.ControlSettings;
import dev.flowpipe.flowcontrol.ControlSettings.Mode;
import java.time.Duration;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How the broker's write rate follows the exporter's lag ({@code flowpipe.flow-control.*}). Also the settings that
 * {@code POST /actuator/flowControl} changes at runtime, so every change goes through the same validation.
 *
 * @param enabled run the lag controller; off, only {@code write-limit} (if set) limits writes
 * @param mode what the controller holds at its target: the age of the oldest record not yet durable in the store
 *     ({@code time}, target {@code max-export-lag}) or the number of records not yet durable ({@code records}, target
 *     {@code acceptable-backlog})
 * @param maxExportLag target of the time mode: the lag the controller lets the store fall behind by, no more
 * @param acceptableBacklog target of the records mode, in records
 * @param minWriteRate the controller never limits writes below this many records per second
 * @param resolution how often the controller measures and adjusts
 * @param writeLimit a static limit on writes, records per second, applied on top of the controller; 0 for none
 * @param window the span over which the controller measures rates and decides: it engages only when the lag stayed
 *     at or above the target for a whole window while the backlog grew, and sets no limit before a first full window
 * @param warmUp after the node starts, how long the lag must reach twice the target before the controller engages
 *     (a young store is slow at first; the backlog backstop applies throughout)
 */
public record FlowControlProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("time") Mode mode,
    @DefaultValue("2s") Duration maxExportLag,
    @DefaultValue("100000") long acceptableBacklog,
    @DefaultValue("100") int minWriteRate,
    @DefaultValue("250ms") Duration resolution,
    @DefaultValue("0") int writeLimit,
    @DefaultValue("5s") Duration window,
    @DefaultValue("60s") Duration warmUp) {

  private static final String P = "flowpipe.flow-control.";

  public FlowControlProperties {
    control(enabled, mode, maxExportLag, acceptableBacklog, minWriteRate, resolution, writeLimit, window, warmUp);
  }

  /** The controller's settings (the flow-control module's, shared with the flowpipe server). */
  public ControlSettings control() {
    return control(enabled, mode, maxExportLag, acceptableBacklog, minWriteRate, resolution, writeLimit, window, warmUp);
  }

  /** Validated by the controller's own settings, each message naming the node's key. */
  private static ControlSettings control(boolean enabled, Mode mode, Duration maxExportLag, long acceptableBacklog,
      int minWriteRate, Duration resolution, int writeLimit, Duration window, Duration warmUp) {
    try {
      return new ControlSettings(enabled, mode,
          maxExportLag, acceptableBacklog, minWriteRate, resolution, writeLimit, window, warmUp);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(P + e.getMessage(), e);
    }
  }

  /** The defaults, as bound from an empty configuration. */
  public static FlowControlProperties defaults() {
    return new FlowControlProperties(true, Mode.TIME, Duration.ofSeconds(2), 100_000, 100, Duration.ofMillis(250), 0,
        Duration.ofSeconds(5), Duration.ofSeconds(60));
  }

  /** This record with the given values changed (nulls keep the current value), validated as a whole. */
  public FlowControlProperties with(
      Boolean enabled, Mode mode, Duration maxExportLag, Long acceptableBacklog, Integer minWriteRate,
      Duration resolution, Integer writeLimit, Duration window, Duration warmUp) {
    return new FlowControlProperties(
        enabled == null ? this.enabled : enabled,
        mode == null ? this.mode : mode,
        maxExportLag == null ? this.maxExportLag : maxExportLag,
        acceptableBacklog == null ? this.acceptableBacklog : acceptableBacklog,
        minWriteRate == null ? this.minWriteRate : minWriteRate,
        resolution == null ? this.resolution : resolution,
        writeLimit == null ? this.writeLimit : writeLimit,
        window == null ? this.window : window,
        warmUp == null ? this.warmUp : warmUp);
  }
}
