package dev.flowpipe.webapp.audit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.index.AuditLogIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log as documents in {@code <prefix>-audit-log-v1} ({@link AuditLogIndex}), one per operation, in the
 * shape of Camunda 8.9's audit log ({@code auditLogKey}, {@code entityKey}, {@code entityType}, {@code operationType},
 * {@code actorId}, {@code actorType}, {@code timestamp}, {@code result}, ...). Each entry's key is made once, when the
 * operation ends, from the clock's milliseconds and random bits; every write of it (a retry after a store error) puts
 * the same document, so an operation has one entry. Deleted by the retention sweep with the read model.
 *
 * <p>The operation has been carried out when its entry is written: an entry the store refuses is logged (WARN) and
 * the operation's answer stands.
 */
public final class StoredAuditLog implements AuditLog {

  private static final Logger LOG = LoggerFactory.getLogger(StoredAuditLog.class);
  private static final int WRITE_ATTEMPTS = 3;

  private final ReadModel readModel;
  private final Clock clock;
  private final RandomGenerator random;
  private volatile boolean indexReady;

  public StoredAuditLog(ReadModel readModel, Clock clock, RandomGenerator random) {
    this.readModel = readModel;
    this.clock = clock;
    this.random = random;
  }

  @Override
  public void record(AuditedOperation operation, String user, String errorMessage) {
    long millis = clock.millis();
    String key = millis + "-" + Long.toHexString(random.nextLong() & Long.MAX_VALUE);
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("auditLogKey", key);
    entry.put("entityKey", operation.entityKey());
    entry.put("entityType", operation.entityType());
    entry.put("operationType", operation.operationType());
    entry.put("category", "DEPLOYED_RESOURCES");
    entry.put("actorId", user);
    entry.put("actorType", "anonymous".equals(user) ? "ANONYMOUS" : "USER");
    entry.put("timestamp", java.time.Instant.ofEpochMilli(millis).toString());
    entry.put("result", errorMessage == null ? "SUCCESS" : "FAIL");
    entry.put("processInstanceKey", operation.processInstanceKey());
    entry.put("batchOperationKey", operation.batchOperationKey());
    entry.put("batchOperationType", operation.batchOperationType());
    entry.put("details", operation.details());
    entry.put("errorMessage", errorMessage);
    for (int attempt = 1; ; attempt++) {
      try {
        store().put(index(), key, entry);
        return;
      } catch (RuntimeException e) {
        if (attempt == WRITE_ATTEMPTS) {
          LOG.warn("audit log entry {} of {} {} not written: {}", key, operation.operationType(),
              operation.entityKey(), e.toString());
          return;
        }
      }
    }
  }

  /** One entry by its key. */
  public Optional<Map<String, Object>> entry(String auditLogKey) {
    SearchStore store = store();
    return store.get(index(), auditLogKey);
  }

  /**
   * The entries the query (a store query, built by {@link AuditLogController}) finds, sorted, from {@code from} on;
   * with the total.
   */
  public Page search(Map<String, Object> query, List<Map<String, Object>> sort, int from, int limit) {
    SearchStore store = store();
    store.refresh(index());
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("query", query);
    body.put("sort", sort);
    body.put("from", from);
    body.put("size", limit);
    body.put("track_total_hits", true);
    JsonNode answer = store.admin().request("search the audit log", "POST", "/" + index() + "/_search", body);
    List<Map<String, Object>> items = new ArrayList<>();
    for (JsonNode hit : answer.path("hits").path("hits")) {
      @SuppressWarnings("unchecked")
      Map<String, Object> source = new com.fasterxml.jackson.databind.ObjectMapper().convertValue(
          hit.path("_source"), Map.class);
      items.add(source);
    }
    return new Page(items, answer.path("hits").path("total").path("value").asLong());
  }

  /** A page of entries and how many the query finds in all. */
  public record Page(List<Map<String, Object>> items, long total) {}

  private String index() {
    return AuditLogIndex.name(readModel.indexPrefix());
  }

  private SearchStore store() {
    SearchStore store = readModel.store();
    if (!indexReady) {
      if (!store.indexExists(index())) {
        store.createIndex(index(), AuditLogIndex.BODY);
      }
      indexReady = true;
    }
    return store;
  }
}
