package dev.flowpipe.exporter;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.ValueCountQuery;
import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreProduct;
import dev.flowpipe.schema.store.StoreRefusedException;
import dev.flowpipe.schema.store.StoreUnavailableException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory store for the exporter's acknowledgement and retry tests: external versioning by position as the real
 * adapters do it (a write at or below the stored position is superseded), real-time reads, and faults on demand (the
 * next bulks fail, one bulk is held until the test lets it go or fails it). What only a real store shows stays in
 * the tests against OpenSearch and Elasticsearch.
 */
final class FakeStore implements SearchStore {

  private final Map<String, Map<String, Object>> documents = new ConcurrentHashMap<>();
  private final AtomicInteger failingBulks = new AtomicInteger();
  private final ConcurrentLinkedQueue<Hold> holds = new ConcurrentLinkedQueue<>();
  private final AtomicInteger bulks = new AtomicInteger();
  private final AtomicInteger endedBulks = new AtomicInteger();
  private volatile boolean reachable = true;
  private volatile Refusal refusal;

  /** How the store refuses writes it is not allowed to take. */
  private record Refusal(int status, String reason, boolean wholeBulk) {}

  /**
   * From now on the store refuses every bulk of read-model documents as a whole (a user without write rights, a
   * cluster-wide write block): the adapters throw a {@link StoreRefusedException} with the status.
   */
  FakeStore refuseWholeBulks(int status, String reason) {
    refusal = new Refusal(status, reason, true);
    return this;
  }

  /** From now on the store refuses each read-model document in a bulk with this status (an index write block). */
  FakeStore refuseEachDocument(int status, String reason) {
    refusal = new Refusal(status, reason, false);
    return this;
  }

  /** The refusal is lifted. */
  FakeStore acceptWrites() {
    refusal = null;
    return this;
  }

  /** The next {@code count} bulks fail as a whole (the store answers 503). */
  FakeStore failNextBulks(int count) {
    failingBulks.set(count);
    return this;
  }

  /** Whether the store can be reached at all (connecting included). */
  FakeStore reachable(boolean reachable) {
    this.reachable = reachable;
    return this;
  }

  /** The next bulk to arrive waits until {@link Hold#release} or {@link Hold#fail}. */
  Hold holdNextBulk() {
    Hold hold = new Hold(new CountDownLatch(1), new CompletableFuture<>());
    holds.add(hold);
    return hold;
  }

  /** A bulk held in the store. */
  record Hold(CountDownLatch arrival, CompletableFuture<Boolean> outcome) {
    /** Until the held bulk has arrived (bulks are written on the exporter's bulk threads). */
    Hold awaitArrival() {
      try {
        if (!arrival.await(10, TimeUnit.SECONDS)) {
          throw new AssertionError("no bulk arrived to be held");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
      return this;
    }

    void release() {
      outcome.complete(true);
    }

    void fail() {
      outcome.complete(false);
    }
  }

  /** Bulks of read-model documents the store received (held ones included; export-position marks not counted). */
  int bulks() {
    return bulks.get();
  }

  /** Bulks the store has answered (written or failed). */
  int endedBulks() {
    return endedBulks.get();
  }

  Optional<Map<String, Object>> document(String index, String id) {
    return Optional.ofNullable(documents.get(index + "/" + id));
  }


  @Override
  public BulkOutcome bulk(List<DocumentWrite> writes, boolean refresh) {
    checkReachable();
    if (writes.stream().allMatch(write -> write.index().endsWith(ReadModelIndex.EXPORT_POSITION.indexName("")))) {
      return apply(writes); // a mark, after an acknowledgement: never held or failed here
    }
    bulks.incrementAndGet();
    try {
      return write(writes);
    } finally {
      endedBulks.incrementAndGet();
    }
  }

  private BulkOutcome write(List<DocumentWrite> writes) {
    Hold hold = holds.poll();
    if (hold != null) {
      hold.arrival().countDown();
    }
    if (hold != null && !hold.outcome().join()) {
      throw new StoreUnavailableException("held bulk failed");
    }
    if (failingBulks.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new StoreUnavailableException("bulk of " + writes.size() + " failed: 503 Service Unavailable");
    }
    Refusal refused = refusal;
    if (refused != null && refused.wholeBulk()) {
      throw new StoreRefusedException("bulk of " + writes.size() + " refused with HTTP " + refused.status(),
          refused.status(), new IllegalStateException(refused.reason()));
    }
    if (refused != null) {
      BulkOutcome.Collector outcome = new BulkOutcome.Collector();
      writes.forEach(write -> outcome.item(write, refused.status(), refused.reason()));
      return outcome.outcome();
    }
    return apply(writes);
  }

  /** Writes as external versioning does: a write at or below the stored position is superseded (409). */
  private BulkOutcome apply(List<DocumentWrite> writes) {
    BulkOutcome.Collector outcome = new BulkOutcome.Collector();
    for (DocumentWrite write : writes) {
      String key = write.index() + "/" + write.id();
      Map<String, Object> stored = documents.get(key);
      if (stored != null && ((Number) stored.get("position")).longValue() >= write.position()) {
        outcome.item(write, 409, "version_conflict_engine_exception: already at a later position");
      } else {
        Map<String, Object> document = new LinkedHashMap<>(write.document());
        document.put("position", write.position());
        documents.put(key, document);
        outcome.item(write, 200, null);
      }
    }
    return outcome.outcome();
  }

  @Override
  public Map<String, Map<String, Object>> getAll(String index, List<String> ids) {
    checkReachable();
    Map<String, Map<String, Object>> found = new LinkedHashMap<>();
    for (String id : ids) {
      document(index, id).ifPresent(document -> found.put(id, new LinkedHashMap<>(document)));
    }
    return found;
  }

  @Override
  public void put(String index, String id, Map<String, Object> document) {
    checkReachable();
    documents.put(index + "/" + id, new LinkedHashMap<>(document));
  }

  @Override
  public Optional<Map<String, Object>> get(String index, String id) {
    return document(index, id);
  }

  private void checkReachable() {
    if (!reachable) {
      throw new StoreUnavailableException("connection refused");
    }
  }

  @Override
  public StoreProduct product() {
    return StoreProduct.OPENSEARCH;
  }

  @Override
  public String version() {
    return "fake";
  }

  @Override
  public String health() {
    return "green";
  }

  @Override
  public boolean indexExists(String index) {
    checkReachable();
    return true;
  }

  @Override
  public boolean createIndex(String index, String bodyJson) {
    return false;
  }

  @Override
  public dev.flowpipe.schema.store.IndexAdmin admin() {
    // the schema manager brings an existing read model up to this build's fields and entities (SchemaAdditions): it
    // finds no index to complete here (no aliases listed), and a new field is answered as added; nothing else is
    // administered
    return new dev.flowpipe.schema.store.IndexAdmin((what, method, path, json) -> {
      if (method.equals("GET") && path.contains("/_alias")) {
        checkReachable();
        return new dev.flowpipe.schema.store.IndexAdmin.Answer(200, "{}");
      }
      if (method.equals("PUT") && path.contains("/_mapping")) {
        checkReachable();
        return new dev.flowpipe.schema.store.IndexAdmin.Answer(200, "{\"acknowledged\": true}");
      }
      if (method.equals("POST") && path.endsWith(DELETED_INSTANCES_SEARCH)) {
        // the writer reads the tombstones of deleted instances once per session (ADR 0019): one page of those held
        checkReachable();
        return new dev.flowpipe.schema.store.IndexAdmin.Answer(200, json.contains("search_after")
            ? "{\"hits\": {\"hits\": []}}" : tombstoneHits(path.substring(1, path.length() - "/_search".length())));
      }
      throw new UnsupportedOperationException("the exporter administers no index: " + what);
    });
  }

  private static final String DELETED_INSTANCES_SEARCH = "-deleted-instance-v" + ReadModelIndex.SCHEMA_VERSION
      + "/_search";

  private String tombstoneHits(String index) {
    StringBuilder hits = new StringBuilder("{\"hits\": {\"hits\": [");
    String separator = "";
    for (var entry : documents.entrySet()) {
      if (entry.getKey().startsWith(index + "/")) {
        hits.append(separator).append("{\"_source\": {\"processInstanceKey\": ")
            .append(entry.getValue().get("processInstanceKey")).append("}}");
        separator = ", ";
      }
    }
    return hits.append("]}}").toString();
  }

  @Override
  public Map<String, Object> mappingMeta(String index) {
    return Map.of("schemaVersion", ReadModelIndex.SCHEMA_VERSION);
  }

  @Override
  public void refresh(String index) {}

  @Override
  public List<Map<String, Object>> findByField(String index, String field, Object value, int size) {
    List<Map<String, Object>> found = new ArrayList<>();
    documents.forEach((key, document) -> {
      if (key.startsWith(index + "/") && value.equals(document.get(field)) && found.size() < size) {
        found.add(document);
      }
    });
    return found;
  }

  @Override
  public long count(String index) {
    return documents.keySet().stream().filter(key -> key.startsWith(index + "/")).count();
  }

  @Override
  public List<Map<String, Object>> all(String index, int max) {
    throw new UnsupportedOperationException("not needed by the exporter");
  }

  @Override
  public SearchHits search(SearchQuery query) {
    throw new UnsupportedOperationException("not needed by the exporter");
  }

  @Override
  public List<ValueCountQuery.ValueCount> countByValue(ValueCountQuery query) {
    throw new UnsupportedOperationException("not needed by the exporter");
  }

  @Override
  public Optional<java.util.Set<String>> runningTasks(String actions) {
    throw new UnsupportedOperationException("not needed by the exporter");
  }

  @Override
  public void close() {}
}
