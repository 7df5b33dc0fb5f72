package dev.flowpipe.node.flowcontrol;

import java.util.OptionalInt;

/**
 * Whether the store's disk is above its high watermark. While it is, the write limit is held at the floor
 * ({@code min-write-rate}) whatever the lag controller says: a backlog the store cannot take would otherwise fill the
 * disk up to the flood stage, where the store refuses every write.
 */
@FunctionalInterface
public interface DiskPressure {

  /** No disk to watch (an external store). */
  DiskPressure NONE = () -> false;

  boolean aboveHighWatermark();

  /** The limit to apply: {@code limit}, or at most {@code floor} while the disk is above its high watermark. */
  static OptionalInt hold(OptionalInt limit, boolean aboveHighWatermark, int floor) {
    if (!aboveHighWatermark) {
      return limit;
    }
    return OptionalInt.of(limit.isPresent() ? Math.min(limit.getAsInt(), floor) : floor);
  }
}
