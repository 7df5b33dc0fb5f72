package dev.flowpipe.webapp.operations;

import java.util.OptionalLong;

/**
 * Where a partition's log ends now, as far as this process can tell: after a command's answer every record it caused
 * is written at or below that position, so a read that waits for the read model to hold the log up to it sees the
 * command's effect. Inside the node, known for the partitions the node leads; the web app on its own knows none.
 */
public interface WrittenPositions {

  WrittenPositions NONE = partitionId -> OptionalLong.empty();

  /** The position of the last record written to the partition's log, if this process leads it. */
  OptionalLong lastWritten(int partitionId);

  /** A Zeebe key carries the partition that made it in the bits above its 51-bit counter. */
  static int partitionOf(long key) {
    return (int) (key >> 51);
  }
}
