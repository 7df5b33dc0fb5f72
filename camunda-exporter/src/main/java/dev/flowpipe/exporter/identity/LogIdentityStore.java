package dev.flowpipe.exporter.identity;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** A partition's log identity in the store, its export position, and wiping its read model. */
public final class LogIdentityStore {

  /** What the store holds for the partition when the exporter connects. */
  public record Stored(Optional<LogIdentity> identity, long exportPosition) {}

  private final SearchStore store;
  private final String prefix;
  private final int partitionId;

  public LogIdentityStore(SearchStore store, String prefix, int partitionId) {
    this.store = store;
    this.prefix = prefix;
    this.partitionId = partitionId;
  }

  public Stored read() {
    Optional<LogIdentity> identity = store.get(ReadModelIndex.LOG_IDENTITY.indexName(prefix),
        ReadModelIndex.logIdentityId(partitionId)).map(LogIdentity::of);
    long exported = store.get(ReadModelIndex.EXPORT_POSITION.indexName(prefix),
            ReadModelIndex.exportPositionId(partitionId))
        .map(marker -> marker.get("position"))
        .map(position -> ((Number) position).longValue())
        .orElse(-1L);
    return new Stored(identity, exported);
  }

  /** Records {@code identity} as the partition's log (before anything from that log is acknowledged). */
  public void write(LogIdentity identity, Instant now) {
    store.put(ReadModelIndex.LOG_IDENTITY.indexName(prefix), ReadModelIndex.logIdentityId(partitionId),
        identity.document(now));
    store.refresh(ReadModelIndex.LOG_IDENTITY.indexName(prefix));
  }

  /**
   * Deletes what the partition wrote to the read model (its documents, dead letters and export position) and its
   * identity; other partitions' documents stay. Returns how many documents went.
   */
  public long wipeReadModel() {
    return store.admin().deleteWhere(List.of(ReadModelIndex.sharedIndexName(prefix),
        ReadModelIndex.DEAD_LETTER.indexName(prefix), ReadModelIndex.EXPORT_POSITION.indexName(prefix),
        ReadModelIndex.LOG_IDENTITY.indexName(prefix)), "partitionId", partitionId);
  }

}
