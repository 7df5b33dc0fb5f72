package dev.flowpipe.webapp.operations;

import dev.flowpipe.schema.deletion.DeletedInstances;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Deletes a finished process instance from the read model (8.9's {@code POST /process-instances/{key}/deletion}).
 * Zeebe 8.6 has no command to delete an instance's history, so its records stay in the broker's log: a tombstone
 * ({@link DeletedInstances}) makes the writer drop them on any replay (ADR 0019), then the instance's documents go
 * (element instances, variables, jobs, incidents, sequence flows, message subscriptions and correlations, decision
 * instances of its business rule tasks; the instance document last). As in 8.9, only this instance: a called child
 * or the calling parent stays.
 *
 * <p>The tombstone is honoured by a writer session from its first bulk on; a session that is already running never
 * meets the instance again once the partition's export position has passed the instance's last record, which is why a
 * deletion waits for that (a 503 with {@code Retry-After} in the rare moment before the exporter marks it).
 */
public final class InstanceDeletion {

  /** What was deleted: the instance's partition and how many documents went. */
  public record Deleted(long processInstanceKey, int partitionId, long documents) {}

  private final ReadModel readModel;
  private final Clock clock;

  public InstanceDeletion(ReadModel readModel, Clock clock) {
    this.readModel = readModel;
    this.clock = clock;
  }

  /**
   * Deletes the instance on behalf of {@code user}.
   *
   * @throws EngineCommandException NOT_FOUND an instance the read model does not hold (also one deleted before),
   *     REJECTED one still active, UNAVAILABLE one whose end the exporter has not marked exported yet
   */
  public Deleted delete(long processInstanceKey, String user) {
    var store = readModel.store();
    List<Map<String, Object>> found =
        store.findByField(readModel.index(ReadModelIndex.PROCESS_INSTANCE), "key", processInstanceKey, 1);
    if (found.isEmpty()) {
      throw new EngineCommandException(EngineCommandException.Kind.NOT_FOUND,
          "Expected to delete process instance with key '" + processInstanceKey + "', but no such process instance"
              + " was found");
    }
    Map<String, Object> instance = found.getFirst();
    Object state = instance.get("state");
    if ("ACTIVE".equals(state) || instance.get("endDate") == null) {
      throw new EngineCommandException(EngineCommandException.Kind.REJECTED,
          "Expected to delete process instance with key '" + processInstanceKey + "', but it is not completed or"
              + " terminated (state " + state + "); cancel it first");
    }
    int partition = instance.get("partitionId") instanceof Number p ? p.intValue()
        : WrittenPositions.partitionOf(processInstanceKey);
    long position = instance.get("position") instanceof Number p ? p.longValue() : 0;
    long exported = store.get(readModel.index(ReadModelIndex.EXPORT_POSITION),
            ReadModelIndex.exportPositionId(partition))
        .map(marker -> marker.get("position") instanceof Number n ? n.longValue() : -1L).orElse(-1L);
    if (exported < position) {
      throw new EngineCommandException(EngineCommandException.Kind.UNAVAILABLE,
          "process instance " + processInstanceKey + " ended at position " + position + " of partition " + partition
              + ", which the exporter has not marked exported yet (" + exported + "); try again");
    }
    DeletedInstances tombstones = new DeletedInstances(store, readModel.indexPrefix());
    tombstones.mark(new DeletedInstances.Tombstone(processInstanceKey, partition, position, endDate(instance),
        clock.instant(), user));
    return new Deleted(processInstanceKey, partition, tombstones.deleteDocumentsOf(processInstanceKey));
  }

  /** Whether the instance was deleted here (a tombstone holds it). */
  public boolean deleted(long processInstanceKey) {
    return new DeletedInstances(readModel.store(), readModel.indexPrefix()).holds(processInstanceKey);
  }

  private static Instant endDate(Map<String, Object> instance) {
    Object end = instance.get("endDate");
    if (end instanceof Number millis) {
      return Instant.ofEpochMilli(millis.longValue());
    }
    try {
      return end == null ? null : Instant.parse(end.toString());
    } catch (RuntimeException e) {
      return null; // the date is for retention only: without it the tombstone stays until deleted by hand
    }
  }
}
