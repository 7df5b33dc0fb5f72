package dev.flowpipe.webapp.consistency;

import java.time.Duration;
import java.util.List;

/**
 * What a client wants the answer to include at least, and how long it will wait for it.
 *
 * @param processInstanceKey a process instance the client created: wait until the read model holds it
 * @param positions log positions per partition: wait until the read model holds a change made at or after each
 * @param timeout how long to wait at most (already capped at the configured maximum)
 */
public record ConsistencyRequest(Long processInstanceKey, List<PartitionPosition> positions, Duration timeout) {

  public ConsistencyRequest {
    positions = positions == null ? List.of() : List.copyOf(positions);
  }

  /** A position in one partition's log. */
  public record PartitionPosition(int partitionId, long position) {}
}
