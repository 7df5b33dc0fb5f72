package dev.flowpipe.schema.retention;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What one sweep found and did (ADR 0011), for metrics and health.
 *
 * @param deleted the periods whose index this sweep deleted (or finished deleting)
 * @param pinned the expired periods kept because an instance in them is still active or not yet exported
 * @param instancesPruned finished instances removed one by one from pinned periods and the base index
 * @param deadLettersDeleted dead letters older than the retention, deleted
 * @param batchOperationsDeleted batch operations that ended before the cutoff, deleted with their items and leases
 * @param oldestDataHeld the start of the oldest period still held, or of the base's oldest instance; empty when none
 * @param bytesHeld the store size of the read model's indices (base and periods, primaries and replicas)
 * @param nextDeletion when the oldest live period becomes due for deletion; empty when none is held
 */
public record RetentionStatus(List<Period> deleted, List<Period> pinned, long instancesPruned, long deadLettersDeleted,
    long batchOperationsDeleted,    Optional<Instant> oldestDataHeld, long bytesHeld, Optional<Instant> nextDeletion) {

  public RetentionStatus {
    deleted = List.copyOf(deleted);
    pinned = List.copyOf(pinned);
  }
}
