package dev.flowpipe.importer.cursor;

import dev.flowpipe.importer.source.RawRecordIndices;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.writer.handler.DocumentChange;
import io.camunda.zeebe.protocol.record.ValueType;
import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * The importer's cursors in the target store, one document per partition in {@code <prefix>-importer-position-v1}.
 *
 * <p>A cursor document is a change in the same buffer, and so the same bulk, as the documents of the records it covers,
 * which costs no request of its own. A bulk is not atomic, though: the store can take the cursor and refuse some
 * documents of the same bulk (overload), and an importer killed before it writes them again would skip them if it
 * resumed from that cursor. So each cursor document carries two cursors: {@code sequence-*}, what its bulk covers,
 * and {@code resume-*}, what was durable before that bulk (everything up to it was written by complete bulks). A
 * restart resumes from {@code resume-*}: at most the records of the last bulk are read again, and writing them again
 * changes nothing (documents are versioned by position). Once a partition is caught up, a last cursor document with
 * both the same ends that re-read.
 *
 * <p>Cursor documents are versioned like read-model documents: by twice the newest position they cover (plus one for
 * that last confirmation), so an older cursor never overwrites a newer one.
 */
public final class CursorStore {

  private static final String SEQUENCE = "sequence-";
  private static final String RESUME = "resume-";

  private final SearchStore store;
  private final String index;

  public CursorStore(SearchStore store, String indexPrefix) {
    this.store = store;
    this.index = indexName(indexPrefix);
  }

  public static String indexName(String indexPrefix) {
    return indexPrefix + "-importer-position-v1";
  }

  /** Creates the index if it is missing. */
  public void ensureIndex() {
    if (!store.indexExists(index)) {
      store.createIndex(index, """
          {"settings": {"number_of_shards": 1, "number_of_replicas": 0},
           "mappings": {"dynamic": false, "_meta": {"schemaVersion": 1},
             "properties": {"partitionId": {"type": "integer"}, "lastPosition": {"type": "long"}}}}""");
    }
  }

  /** Where the partition resumes: its stored {@code resume-*} cursor, or the start. */
  public PartitionCursor resumeOf(int partitionId, Collection<ValueType> valueTypes) {
    PartitionCursor start = PartitionCursor.start(partitionId, valueTypes);
    Optional<Map<String, Object>> stored = store.get(index, id(partitionId));
    if (stored.isEmpty()) {
      return start;
    }
    Map<ValueType, Long> sequences = new EnumMap<>(ValueType.class);
    for (ValueType type : valueTypes) {
      Object value = stored.get().get(RESUME + RawRecordIndices.valueTypeName(type));
      sequences.put(type, value instanceof Number n ? n.longValue() : start.sequence(type));
    }
    return new PartitionCursor(partitionId, sequences, number(stored.get().get("resumePosition")),
        number(stored.get().get("resumeTimestamp")));
  }

  private static long number(Object value) {
    return value instanceof Number n ? n.longValue() : -1;
  }

  /**
   * The cursor document for a bulk covering up to {@code covered}, of which everything up to {@code durable} is
   * already durable.
   */
  public DocumentChange change(PartitionCursor covered, PartitionCursor durable) {
    boolean confirmation = covered.equals(durable);
    long version = 2 * Math.max(0, covered.lastPosition()) + (confirmation ? 1 : 0);
    DocumentChange.Builder change = DocumentChange.create(index, id(covered.partitionId()), version)
        .put("partitionId", covered.partitionId())
        .put("lastPosition", covered.lastPosition())
        .put("lastTimestamp", covered.lastTimestamp())
        .put("resumePosition", durable.lastPosition())
        .put("resumeTimestamp", durable.lastTimestamp());
    covered.sequences().forEach((type, sequence) ->
        change.put(SEQUENCE + RawRecordIndices.valueTypeName(type), sequence));
    durable.sequences().forEach((type, sequence) ->
        change.put(RESUME + RawRecordIndices.valueTypeName(type), sequence));
    return change.build();
  }

  private static String id(int partitionId) {
    return "partition-" + partitionId;
  }

  public String index() {
    return index;
  }
}
