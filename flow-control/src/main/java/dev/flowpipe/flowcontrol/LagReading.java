package dev.flowpipe.flowcontrol;

import java.time.Duration;
import java.util.Optional;

/**
 * A partition's positions at one moment, as an {@link ExporterLag} reads them.
 *
 * @param written the last position written to the partition's log
 * @param exported the position up to which every record is durable in the store
 * @param oldestPendingAge how long the oldest record not yet durable has waited, where the source knows it (our
 *     exporter in-process does; position marks in the store do not, and the age is then estimated from the backlog
 *     and the export rate)
 */
public record LagReading(long written, long exported, Optional<Duration> oldestPendingAge) {

  public LagReading {
    exported = Math.min(written, exported);
  }
}
