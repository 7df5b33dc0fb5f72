package dev.flowpipe.schema.deletion;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Finished process instances deleted from the read model (issue 35, ADR 0019), in {@code <prefix>-deleted-instance-v2}:
 * one tombstone per instance, id its key. Zeebe 8.6 keeps no command to delete history, so the instance's records stay
 * in the broker's log; the writer drops every document of a tombstoned instance, so a replay of that log does not
 * bring it back. The tombstone is written (and made searchable) before the documents are deleted, so a deletion
 * stopped half-way leaves the instance marked, and deleting again finishes it.
 */
public final class DeletedInstances {

  /** A deleted instance: its key and partition, its last position and end, and who deleted it when. */
  public record Tombstone(long processInstanceKey, int partitionId, long position, Instant endDate, Instant deletedAt,
      String user) {
    public Tombstone {
      Objects.requireNonNull(deletedAt, "deletedAt");
      Objects.requireNonNull(user, "user");
    }
  }

  // the entities whose documents belong to one instance (definitions, DRDs and decisions outlive it)
  private static final List<ReadModelIndex> OF_AN_INSTANCE = ReadModelIndex.entities().stream()
      .filter(index -> index != ReadModelIndex.PROCESS_DEFINITION && index != ReadModelIndex.DECISION_DEFINITION
          && index != ReadModelIndex.DECISION_REQUIREMENTS && index != ReadModelIndex.PROCESS_INSTANCE)
      .toList();
  private static final int PAGE = 1_000;

  private final SearchStore store;
  private final String prefix;
  private final String index;

  public DeletedInstances(SearchStore store, String prefix) {
    this.store = Objects.requireNonNull(store);
    this.prefix = Objects.requireNonNull(prefix);
    this.index = indexName(prefix);
  }

  public static String indexName(String prefix) {
    return prefix + "-deleted-instance-v" + ReadModelIndex.SCHEMA_VERSION;
  }

  /** Creates the index if missing. */
  public void ensureIndex() {
    if (!store.indexExists(index)) {
      store.createIndex(index, """
          {"settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0}},
           "mappings": {"dynamic": "strict", "_meta": {"schemaVersion": %d}, "properties": {
             "processInstanceKey": {"type": "long"}, "partitionId": {"type": "integer"}, "position": {"type": "long"},
             "endDate": {"type": "date"}, "deletedAt": {"type": "date"}, "user": {"type": "keyword"}}}}
          """.formatted(ReadModelIndex.SCHEMA_VERSION));
    }
  }

  /** Makes the tombstone durable and searchable; writing it again is a no-op in effect. */
  public void mark(Tombstone tombstone) {
    ensureIndex();
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("processInstanceKey", tombstone.processInstanceKey());
    document.put("partitionId", tombstone.partitionId());
    document.put("position", tombstone.position());
    if (tombstone.endDate() != null) {
      document.put("endDate", tombstone.endDate().toEpochMilli());
    }
    document.put("deletedAt", tombstone.deletedAt().toEpochMilli());
    document.put("user", tombstone.user());
    store.put(index, String.valueOf(tombstone.processInstanceKey()), document);
    store.refresh(index);
  }

  /** The keys of the instances of this partition deleted so far; none when nothing was ever deleted. */
  public Set<Long> keysOf(int partitionId) {
    Set<Long> keys = new HashSet<>();
    if (!store.indexExists(index)) {
      return keys;
    }
    store.refresh(index);
    Long after = null;
    while (true) {
      Map<String, Object> search = new LinkedHashMap<>();
      search.put("size", PAGE);
      search.put("_source", List.of("processInstanceKey"));
      search.put("query", Map.of("term", Map.of("partitionId", partitionId)));
      search.put("sort", List.of(Map.of("processInstanceKey", "asc")));
      if (after != null) {
        search.put("search_after", List.of(after));
      }
      JsonNode hits = store.admin().request("deleted instances of partition " + partitionId, "POST",
          "/" + index + "/_search", search).path("hits").path("hits");
      if (hits.isEmpty()) {
        return keys;
      }
      for (JsonNode hit : hits) {
        after = hit.path("_source").path("processInstanceKey").asLong();
        keys.add(after);
      }
    }
  }

  /** Whether the instance has a tombstone. */
  public boolean holds(long processInstanceKey) {
    return store.indexExists(index) && store.get(index, String.valueOf(processInstanceKey)).isPresent();
  }

  /**
   * Deletes every document of the instance from the read model (every period of it, through the entities' names):
   * the documents that hang on it first, the instance document last, so a deletion stopped in between still finds
   * the instance. Returns how many documents went.
   */
  public long deleteDocumentsOf(long processInstanceKey) {
    long deleted = store.admin().deleteWhere(
        OF_AN_INSTANCE.stream().map(entity -> entity.indexName(prefix)).toList(), "processInstanceKey",
        processInstanceKey);
    return deleted + store.admin().deleteWhere(List.of(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix)), "key",
        processInstanceKey);
  }

  /**
   * Tombstones of instances that ended before the cutoff: retention removes such an instance's documents itself (a
   * period's index whole, whose replayed documents the exporter drops; or one by one in a pinned period, as for any
   * other instance), so the tombstone has done its work. Returns how many went.
   */
  public long deleteEndedBefore(Instant cutoff) {
    if (!store.indexExists(index)) {
      return 0;
    }
    JsonNode answer = store.admin().request("expired tombstones in " + index, "POST",
        "/" + index + "/_delete_by_query?conflicts=proceed&refresh=true", Map.of("query",
            Map.of("range", Map.of("endDate", Map.of("lt", cutoff.toEpochMilli(), "format", "epoch_millis")))));
    if (answer.path("failures").size() > 0) {
      throw new IllegalStateException("expired tombstones in " + index + " failed: " + answer.path("failures"));
    }
    return answer.path("deleted").asLong();
  }
}
