package dev.flowpipe.flowcontrol;

import java.util.Optional;

/**
 * How far the store is behind a partition's log: records and time not yet durable. The node reads it from the broker
 * and our exporter in-process ({@link ExportProgressBoard}); the server from the brokers' log positions and our
 * exporter's position marks in the store. Typed, so that no meter name decides whether flow control works.
 */
@FunctionalInterface
public interface ExporterLag {

  /**
   * The partition's lag now, or empty when it is not known now (the partition has no leader within reach, did not
   * answer in time, or no position is known yet): the controller then keeps the limit in force.
   */
  Optional<LagReading> read(int partitionId);
}
