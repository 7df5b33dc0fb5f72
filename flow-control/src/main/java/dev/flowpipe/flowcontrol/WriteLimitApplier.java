package dev.flowpipe.flowcontrol;

import java.util.OptionalInt;

/**
 * Puts a partition's write limit in force on the broker that leads it. The node sets it through the partition's admin
 * access in-process; the server through the brokers' {@code POST /actuator/flowControl}.
 */
@FunctionalInterface
public interface WriteLimitApplier {

  /**
   * Limits the partition's writes to {@code limit} records per second, or removes the limit (empty). Throws when the
   * limit could not be applied; the caller applies it again at its next tick.
   */
  void apply(int partitionId, OptionalInt limit);
}
