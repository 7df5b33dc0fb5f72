package dev.flowpipe.writer.store;

import dev.flowpipe.schema.deletion.DeletedInstances;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.writer.batch.PendingDocument;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Tells the documents of instances deleted from the read model (ADR 0019), so the writer drops them: their records
 * stay in the broker's log, and a replay (an exporter started from an older position, an importer from a wiped cursor)
 * must not bring them back. The partition's tombstones are read once, at the first flush of a session: a deletion
 * waits until the partition's export position has passed the instance's last record, so no record of a deleted
 * instance comes after that but in a replay, and every replay starts a new session (a reopened exporter, a restarted
 * importer).
 *
 * <p>Used from the bulk threads; the first one loads the keys.
 */
public final class DeletedInstanceFilter {

  private static final String INSTANCE_SUFFIX = ReadModelIndex.PROCESS_INSTANCE.indexName("");

  private final DeletedInstances tombstones;
  private final int partitionId;
  private volatile Set<Long> keys;

  public DeletedInstanceFilter(DeletedInstances tombstones, int partitionId) {
    this.tombstones = tombstones;
    this.partitionId = partitionId;
  }

  /** Whether this partition has deleted instances at all (most read models have none: nothing to check). */
  public boolean any() {
    return !keys().isEmpty();
  }

  /** Whether the document belongs to a deleted instance of this partition. */
  public boolean deleted(PendingDocument document) {
    Set<Long> deleted = keys();
    return !deleted.isEmpty() && instanceOf(document.index(), document.state()).filter(deleted::contains).isPresent();
  }

  private Set<Long> keys() {
    Set<Long> loaded = keys;
    if (loaded == null) {
      synchronized (this) {
        if (keys == null) {
          keys = Set.copyOf(tombstones.keysOf(partitionId));
        }
        loaded = keys;
      }
    }
    return loaded;
  }

  /**
   * The instance a document belongs to: its {@code processInstanceKey}, or for the instance's own document its
   * {@code key} (the index name may carry a period route after the entity's name: {@code ...-v2|p|key}).
   */
  static Optional<Long> instanceOf(String index, Map<String, Object> state) {
    if (state == null) {
      return Optional.empty();
    }
    if (state.get("processInstanceKey") instanceof Number key) {
      return Optional.of(key.longValue());
    }
    int route = index.indexOf('|');
    String entityName = route < 0 ? index : index.substring(0, route);
    if (entityName.endsWith(INSTANCE_SUFFIX) && state.get("key") instanceof Number key) {
      return Optional.of(key.longValue());
    }
    return Optional.empty();
  }
}
