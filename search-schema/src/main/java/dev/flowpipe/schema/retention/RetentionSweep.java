package dev.flowpipe.schema.retention;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.deletion.DeletedInstances;
import dev.flowpipe.schema.index.AuditLogIndex;
import dev.flowpipe.schema.index.BatchOperationIndex;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.IndexAdmin;
import dev.flowpipe.schema.store.SearchStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes what retention no longer keeps (ADR 0011): a period's index whole once every partition that opened it has
 * moved on to a later period and exported past that point, every instance in it ended before the cutoff and every
 * partition has exported past its documents; in a period pinned by a still-active instance, and in
 * the base index, the expired finished instances one by one. Restart-safe: a period is marked {@code DELETING} before
 * its index goes and {@code DELETED} after, and a sweep finishes any deletion it finds marked; deleting twice is a
 * no-op.
 */
public final class RetentionSweep {

  private static final Logger LOG = LoggerFactory.getLogger(RetentionSweep.class);
  private static final String INSTANCE = ReadModelIndex.PROCESS_INSTANCE.entity();
  // instances pruned per round: one search for their keys, two deletions by query
  private static final int PRUNE_PAGE = 500;
  // more partitions than any cluster has: a terms aggregation over partitions that would drop some is refused below
  private static final int MAX_PARTITIONS = 10_000;

  private final SearchStore store;
  private final IndexAdmin admin;
  private final String prefix;
  private final RetentionSettings settings;
  private final Clock clock;
  private final BucketTableStore tableStore;

  public RetentionSweep(SearchStore store, String prefix, RetentionSettings settings, Clock clock) {
    if (!settings.enabled()) {
      throw new IllegalArgumentException("retention is off: nothing to sweep");
    }
    this.store = Objects.requireNonNull(store);
    this.admin = store.admin();
    this.prefix = Objects.requireNonNull(prefix);
    this.settings = settings;
    this.clock = Objects.requireNonNull(clock);
    this.tableStore = new BucketTableStore(store, prefix);
  }

  /** One pass: deletes and prunes what is due, and reports what the store then holds. */
  public RetentionStatus sweep() {
    tableStore.ensureIndex();
    BucketTable table = tableStore.read(settings.period());
    Instant cutoff = clock.instant().minus(settings.keep());
    Map<Integer, Long> exported = exportedPositions();
    List<Period> deleted = new ArrayList<>();
    List<Period> pinned = new ArrayList<>();
    long pruned = 0;
    Instant oldestLive = null;
    for (Period period : table.periods()) {
      String index = period.indexName(prefix);
      switch (table.state(period)) {
        case DELETED -> store.deleteIndex(index); // a no-op unless someone recreated it by hand
        case DELETING -> {
          delete(period, index);
          deleted.add(period);
        }
        case LIVE -> {
          if (period.end().isAfter(cutoff)) {
            oldestLive = oldestLive == null ? period.start() : oldestLive;
          } else if (closedEverywhere(table, period, exported) && deletable(index, cutoff, exported)) {
            tableStore.write(period, BucketTable.State.DELETING);
            delete(period, index);
            deleted.add(period);
          } else {
            pinned.add(period);
            pruned += prune(index, cutoff, exported);
            oldestLive = oldestLive == null ? period.start() : oldestLive;
          }
        }
      }
    }
    String base = ReadModelIndex.sharedIndexName(prefix);
    Optional<Instant> oldestInBase = Optional.empty();
    if (store.indexExists(base)) {
      pruned += prune(base, cutoff, exported);
      oldestInBase = oldestStart(base);
    }
    Optional<Instant> oldest = oldestInBase.isPresent() ? oldestInBase : Optional.ofNullable(oldestLive);
    Optional<Instant> next = Optional.ofNullable(oldestLive).map(start -> start.plus(settings.period())
        .plus(settings.keep()));
    // the tombstones of deleted instances go with the instances retention removes itself (ADR 0019)
    new DeletedInstances(store, prefix).deleteEndedBefore(cutoff);
    deleteOldAuditEntries(cutoff);
    return new RetentionStatus(deleted, pinned, pruned, deleteOldDeadLetters(cutoff), deleteEndedBatches(cutoff),
        oldest, bytesHeld(), next);
  }

  private void delete(Period period, String index) {
    store.deleteIndex(index);
    tableStore.write(period, BucketTable.State.DELETED);
    LOG.info("retention: deleted period index {}", index);
  }

  /**
   * Whether every partition that opened the period has since opened a later one and exported past the record that
   * did: only then has every instance of the period reached its index. An index that looks empty or finished may
   * otherwise still be waiting for documents an exporter has not written yet (an exporter behind, or the table's
   * boundary and index made durable before the bulk that carries the period's first documents), and deleting it
   * would lose them: the exporter drops what belongs to a deleted period. A partition's newest period is never
   * deleted whole (its expired instances are pruned one by one).
   */
  private static boolean closedEverywhere(BucketTable table, Period period, Map<Integer, Long> exported) {
    for (Map.Entry<Integer, Optional<BucketTable.Boundary>> partition : table.closingBoundaries(period).entrySet()) {
      Optional<BucketTable.Boundary> closing = partition.getValue();
      if (closing.isEmpty() || exported.getOrDefault(partition.getKey(), -1L) < closing.get().position()) {
        return false;
      }
    }
    return true;
  }

  /**
   * No active instance, the newest end before the cutoff, and every partition's export position at or past the
   * newest position of its documents here (so no record still to be exported would write into the index again).
   */
  private boolean deletable(String index, Instant cutoff, Map<Integer, Long> exported) {
    if (!store.indexExists(index)) {
      return true;
    }
    JsonNode answer = admin.request("retention check of " + index, "POST", "/" + index + "/_search", Map.of(
        "size", 0, "track_total_hits", true,
        "aggs", Map.of(
            "active", Map.of("filter", Map.of("bool", Map.of("filter", List.of(term("kind", INSTANCE)),
                "must_not", List.of(Map.of("exists", Map.of("field", "endDate")))))),
            "newestEnd", Map.of("max", Map.of("field", "endDate")),
            "partitions", Map.of("terms", Map.of("field", "partitionId", "size", MAX_PARTITIONS),
                "aggs", Map.of("newestPosition", Map.of("max", Map.of("field", "position")))))));
    JsonNode aggs = answer.path("aggregations");
    if (aggs.path("active").path("doc_count").asLong() > 0) {
      return false;
    }
    JsonNode newestEnd = aggs.path("newestEnd").path("value");
    if (!newestEnd.isNull() && !newestEnd.isMissingNode() && newestEnd.asLong() >= cutoff.toEpochMilli()) {
      return false;
    }
    if (aggs.path("partitions").path("sum_other_doc_count").asLong() > 0) {
      return false;
    }
    for (JsonNode bucket : aggs.path("partitions").path("buckets")) {
      long newest = bucket.path("newestPosition").path("value").asLong();
      if (exported.getOrDefault(bucket.path("key").asInt(), -1L) < newest) {
        return false;
      }
    }
    return true;
  }

  /**
   * Removes the instances of the index that ended before the cutoff and whose partition has exported past them: their
   * other documents first, the instance document last, so a sweep killed in between finds the instance again.
   */
  private long prune(String index, Instant cutoff, Map<Integer, Long> exported) {
    if (exported.isEmpty()) {
      return 0;
    }
    List<Object> exportedPast = new ArrayList<>();
    exported.forEach((partition, position) -> exportedPast.add(Map.of("bool", Map.of("filter", List.of(
        term("partitionId", partition), Map.of("range", Map.of("position", Map.of("lte", position))))))));
    Map<String, Object> expired = Map.of("bool", Map.of(
        "filter", List.of(term("kind", INSTANCE), Map.of("exists", Map.of("field", "endDate")),
            Map.of("range", Map.of("endDate", Map.of("lt", cutoff.toEpochMilli(), "format", "epoch_millis")))),
        "should", exportedPast, "minimum_should_match", 1));
    long pruned = 0;
    while (true) {
      JsonNode page = admin.request("expired instances of " + index, "POST", "/" + index + "/_search", Map.of(
          "size", PRUNE_PAGE, "_source", List.of("key"), "query", expired, "sort", List.of(Map.of("key", "asc"))));
      List<Long> keys = new ArrayList<>();
      page.path("hits").path("hits").forEach(hit -> keys.add(hit.path("_source").path("key").asLong()));
      if (keys.isEmpty()) {
        return pruned;
      }
      deleteByQuery(index, Map.of("terms", Map.of("processInstanceKey", keys)));
      deleteByQuery(index, Map.of("bool", Map.of("filter", List.of(term("kind", INSTANCE),
          Map.of("terms", Map.of("key", keys))))));
      pruned += keys.size();
    }
  }

  /** The audit log's entries, by age (the time of their operation), as the instances they name. */
  private long deleteOldAuditEntries(Instant cutoff) {
    String index = AuditLogIndex.name(prefix);
    return store.indexExists(index)
        ? deleteByQuery(index, Map.of("range", Map.of("timestamp", Map.of("lt", cutoff.toEpochMilli(),
            "format", "epoch_millis"))))
        : 0;
  }

  /** Dead letters: a small index of their own, deleted by age (the time each was written). */
  private long deleteOldDeadLetters(Instant cutoff) {
    String index = ReadModelIndex.DEAD_LETTER.indexName(prefix);
    return store.indexExists(index)
        ? deleteByQuery(index, Map.of("range", Map.of("time", Map.of("lt", cutoff.toEpochMilli(),
            "format", "epoch_millis"))))
        : 0;
  }

  /**
   * Batch operations that ended before the cutoff, a page at a time: their items and lease first, the batch document
   * last, so a sweep killed in between finds the batch again and finishes it. A running batch (no end) is kept.
   */
  private long deleteEndedBatches(Instant cutoff) {
    String index = BatchOperationIndex.name(prefix);
    if (!store.indexExists(index)) {
      return 0;
    }
    Map<String, Object> ended = Map.of("bool", Map.of("filter", List.of(term("kind", "batch"),
        Map.of("range", Map.of("endDate", Map.of("lt", cutoff.toEpochMilli(), "format", "epoch_millis"))))));
    long deleted = 0;
    while (true) {
      store.refresh(index);
      JsonNode page = admin.request("ended batch operations", "POST", "/" + index + "/_search", Map.of(
          "size", PRUNE_PAGE, "_source", List.of("batchOperationKey"), "query", ended,
          "sort", List.of(Map.of("batchOperationKey", "asc"))));
      List<String> keys = new ArrayList<>();
      page.path("hits").path("hits").forEach(hit -> keys.add(hit.path("_source").path("batchOperationKey").asText()));
      if (keys.isEmpty()) {
        return deleted;
      }
      deleteByQuery(index, Map.of("bool", Map.of("filter", List.of(term("kind", "item"),
          Map.of("terms", Map.of("batchOperationKey", keys))))));
      deleteByQuery(index, Map.of("ids", Map.of("values", keys.stream().map(key -> "lease-" + key).toList())));
      deleted += deleteByQuery(index, Map.of("bool", Map.of("filter", List.of(term("kind", "batch"),
          Map.of("terms", Map.of("batchOperationKey", keys))))));
    }
  }

  private long deleteByQuery(String index, Map<String, Object> query) {
    JsonNode answer = admin.request("retention delete in " + index, "POST",
        "/" + index + "/_delete_by_query?conflicts=proceed&refresh=true", Map.of("query", query));
    if (answer.path("failures").size() > 0) {
      throw new IllegalStateException("retention delete in " + index + " failed: " + answer.path("failures"));
    }
    return answer.path("deleted").asLong();
  }

  private Optional<Instant> oldestStart(String index) {
    JsonNode answer = admin.request("oldest instance in " + index, "POST", "/" + index + "/_search", Map.of(
        "size", 0, "query", term("kind", INSTANCE), "aggs", Map.of("oldest", Map.of("min", Map.of("field",
            "startDate")))));
    JsonNode oldest = answer.path("aggregations").path("oldest").path("value");
    return oldest.isNumber() ? Optional.of(Instant.ofEpochMilli(oldest.asLong())) : Optional.empty();
  }

  /** Every partition's export position, as the exporters last marked it. */
  private Map<Integer, Long> exportedPositions() {
    Map<Integer, Long> positions = new HashMap<>();
    String index = ReadModelIndex.EXPORT_POSITION.indexName(prefix);
    if (store.indexExists(index)) {
      store.refresh(index);
      JsonNode answer = admin.request("export positions", "POST", "/" + index + "/_search",
          Map.of("size", MAX_PARTITIONS));
      for (JsonNode hit : answer.path("hits").path("hits")) {
        positions.put(hit.path("_source").path("partitionId").asInt(), hit.path("_source").path("position").asLong());
      }
    }
    return positions;
  }

  /** The store size of the base and every period index. */
  private long bytesHeld() {
    JsonNode answer = admin.request("read-model size", "GET", "/" + ReadModelIndex.sharedIndexName(prefix) + ","
        + ReadModelIndex.sharedIndexName(prefix + "-p*") + "/_stats/store?ignore_unavailable=true&allow_no_indices=true",
        null);
    return answer.path("_all").path("total").path("store").path("size_in_bytes").asLong();
  }

  private static Map<String, Object> term(String field, Object value) {
    return Map.of("term", Map.of(field, value));
  }
}
