package dev.flowpipe.writer.store;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * Writes the partition's export position after a bulk is acknowledged: every record up to it is durable. It is the
 * sound basis of read-your-writes by position, which a document at some position is not (a bulk can be partly
 * written, and a later bulk can land before an earlier one). Versioned by the position, so concurrent or replayed
 * marks never move it back. Best effort: a failed mark only makes readers wait for the next one.
 */
public final class ExportPositionMarker {

  private final SearchStore store;
  private final String index;
  private final String id;
  private final int partitionId;
  private final Logger log;

  public ExportPositionMarker(SearchStore store, String indexPrefix, int partitionId, Logger log) {
    this.store = store;
    this.index = ReadModelIndex.EXPORT_POSITION.indexName(indexPrefix);
    this.id = ReadModelIndex.exportPositionId(partitionId);
    this.partitionId = partitionId;
    this.log = log;
  }

  public void mark(long position) {
    try {
      store.bulk(List.of(new DocumentWrite(index, id, position, Map.of("partitionId", partitionId))), false);
    } catch (RuntimeException e) {
      log.debug("export position {} of partition {} not marked: {}", position, partitionId, e.getMessage());
    }
  }
}
