package dev.flowpipe.flowcontrol;

import java.time.Duration;

/**
 * One partition's export lag at one moment, as the controller sees it.
 *
 * @param partitionId the partition
 * @param lastWrittenPosition the last position written to the partition's log
 * @param exportedPosition the lowest position acknowledged by the exporters: everything up to it is durable in the
 *     store
 * @param age how long the oldest record not yet durable has waited (engine time), from the exporter's own gauge, or
 *     estimated from the backlog and the export rate when no such gauge exists
 * @param exportRate records per second becoming durable, over the controller's window
 * @param writeRate records per second written to the log, over the controller's window
 */
public record PartitionLag(
    int partitionId, long lastWrittenPosition, long exportedPosition, Duration age, double exportRate,
    double writeRate) {

  /** The latest sample of the window, with the window's rates. */
  public static PartitionLag of(int partitionId, LagWindow window) {
    LagSample latest = window.latest();
    return new PartitionLag(partitionId, latest.written(), latest.exported(), latest.age(), window.exportRate(),
        window.writeRate());
  }

  /** Records written but not yet durable in the store. */
  public long backlog() {
    return Math.max(0, lastWrittenPosition - exportedPosition);
  }
}
