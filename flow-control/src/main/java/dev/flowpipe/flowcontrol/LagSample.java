package dev.flowpipe.flowcontrol;

import java.time.Duration;

/**
 * One measurement of a partition's export lag.
 *
 * @param nanos when it was taken (a monotonic clock)
 * @param written the last position written to the partition's log
 * @param exported the position up to which every record is durable in the store
 * @param age how long the oldest record not yet durable has waited
 */
public record LagSample(long nanos, long written, long exported, Duration age) {

  /** Records written but not yet durable in the store. */
  public long backlog() {
    return Math.max(0, written - exported);
  }
}
