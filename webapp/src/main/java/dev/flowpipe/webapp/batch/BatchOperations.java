package dev.flowpipe.webapp.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.store.StoreUnavailableException;
import dev.flowpipe.webapp.api.SearchAnswer;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.operations.EngineCommandException;
import dev.flowpipe.webapp.operations.EngineCommands;
import dev.flowpipe.webapp.operations.IncidentResolution;
import dev.flowpipe.webapp.operations.OperationAudit;
import dev.flowpipe.webapp.operations.WrittenPositions;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.query.Entity;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batch operations: cancel every active root instance a search filter matches, or resolve every active incident of
 * the instances it matches. Creating one finds the items (through the search API, so the filter is the search's) and
 * keeps the batch and its items in the store ({@link BatchOperationStore}); the items are then carried out in the
 * background, {@code parallelism} at a time, each item's outcome stored as it ends, the batch's counts after each page.
 * A batch still active when the process stopped is taken up again at the next start ({@link #resume()}): items not yet
 * done are sent again; one whose instance or incident the engine no longer knows counts as completed where the read
 * model shows it cancelled or resolved (it was done just before the stop: {@link ItemAlreadyDone}), else as skipped.
 * An item whose command found the engine unreachable or got no answer stays active and is sent again after a pause:
 * it was not refused, and a stopping node answers so for what is in flight.
 */
public final class BatchOperations implements AutoCloseable {

  /** The kinds of batch, named as Camunda's REST API v2 names them. */
  public enum Type { CANCEL_PROCESS_INSTANCE, RESOLVE_INCIDENT }

  private static final Logger LOG = LoggerFactory.getLogger(BatchOperations.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PAGE = 100;
  /** How long a batch waits before it sends again what found the engine unreachable. */
  private static final Duration RETRY_PAUSE = Duration.ofSeconds(1);
  /** How long an item the engine no longer knows waits for the read model to show whether it was done. */
  private static final Duration DONE_CHECK_WAIT = Duration.ofSeconds(5);

  private final BatchOperationStore store;
  private final SearchService search;
  private final EngineCommands engine;
  private final IncidentResolution incidents;
  private final ItemAlreadyDone alreadyDone;
  private final InstantSource clock;
  private final int maxItems;
  private final ExecutorService runner = Executors.newSingleThreadExecutor(
      Thread.ofPlatform().daemon().name("batch-operations").factory());
  private final ExecutorService workers;
  private final AtomicLong lastKey = new AtomicLong();

  public BatchOperations(BatchOperationStore store, SearchService search, EngineCommands engine,
      WrittenPositions positions, InstantSource clock, int parallelism, int maxItems) {
    this.store = store;
    this.search = search;
    this.engine = engine;
    this.incidents = new IncidentResolution(engine, search);
    this.alreadyDone = new ItemAlreadyDone(search, positions, DONE_CHECK_WAIT);
    this.clock = clock;
    this.maxItems = maxItems;
    this.workers = Executors.newFixedThreadPool(parallelism,
        Thread.ofPlatform().daemon().name("batch-operation-item-", 0).factory());
  }

  /** Finds the items of a new batch, stores it and starts it; returns the stored batch. */
  public Map<String, Object> create(Type type, JsonNode request, String user) {
    JsonNode filter = request == null ? null : request.get("filter");
    if (filter == null || !filter.isObject()) {
      throw new BadRequestException("filter", "a batch operation needs a filter (an object, as in a search)");
    }
    // the batch narrows the filter below (state, parent, incident), which would hide a bad value given there: the
    // filter as given must be a valid search first (a bad state is a 400, not a batch over every active instance)
    ObjectNode asGiven = JSON.createObjectNode();
    asGiven.set("filter", filter);
    asGiven.putObject("page").put("limit", 0);
    search.search(Entity.PROCESS_INSTANCES, asGiven);
    String key = nextKey();
    List<Map<String, Object>> items = type == Type.CANCEL_PROCESS_INSTANCE ? cancellations(key, (ObjectNode) filter)
        : resolutions(key, (ObjectNode) filter);
    Map<String, Object> batch = new LinkedHashMap<>();
    batch.put(BatchOperationStore.KIND, "batch");
    batch.put("batchOperationKey", key);
    batch.put("batchOperationType", type.name());
    batch.put("state", items.isEmpty() ? "COMPLETED" : "ACTIVE");
    batch.put("startDate", clock.instant().toString());
    batch.put("endDate", items.isEmpty() ? clock.instant().toString() : null);
    batch.put("operationsTotalCount", items.size());
    batch.put("operationsCompletedCount", 0);
    batch.put("operationsFailedCount", 0);
    batch.put("user", user);
    batch.put("filter", JSON.convertValue(filter, Map.class));
    store.addItems(items);
    store.putBatch(batch);
    if (!items.isEmpty()) {
      runner.submit(() -> run(batch));
    }
    return batch;
  }

  public Optional<Map<String, Object>> batch(String key) {
    return store.batch(key);
  }

  public SearchHits items(String batchKey, String state, int from, int size) {
    return store.items(batchKey, state, from, size);
  }

  /** Takes up the batches a stop left active; tries again every 5 s while the store cannot be reached. */
  public void resume() {
    runner.submit(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        try {
          for (Map<String, Object> batch : store.batchesIn("ACTIVE")) {
            LOG.info("taking up batch operation {} ({}) where it stopped", batch.get("batchOperationKey"),
                batch.get("batchOperationType"));
            run(new LinkedHashMap<>(batch));
          }
          return;
        } catch (StoreUnavailableException e) {
          LOG.info("batch operations wait for the store to resume: {}", e.getMessage());
          try {
            Thread.sleep(5_000);
          } catch (InterruptedException interrupted) {
            return;
          }
        }
      }
    });
  }

  private String nextKey() {
    long candidate = clock.millis() * 1_000;
    return Long.toString(lastKey.updateAndGet(last -> Math.max(last + 1, candidate)));
  }

  /** Only active root instances can be cancelled: the filter's state and parent are overridden, as in the v2 API. */
  private List<Map<String, Object>> cancellations(String key, ObjectNode filter) {
    ObjectNode instances = filter.deepCopy();
    instances.put("state", "ACTIVE");
    instances.set("parentProcessInstanceKey", JSON.createObjectNode().put("$exists", false));
    List<Map<String, Object>> items = new ArrayList<>();
    forEachMatch(Entity.PROCESS_INSTANCES, instances, instance -> items.add(item(key, Type.CANCEL_PROCESS_INSTANCE,
        instance.get("processInstanceKey"), instance.get("processInstanceKey"))));
    return items;
  }

  private List<Map<String, Object>> resolutions(String key, ObjectNode filter) {
    ObjectNode instances = filter.deepCopy();
    instances.put("state", "ACTIVE");
    instances.put("hasIncident", true);
    List<Object> instanceKeys = new ArrayList<>();
    forEachMatch(Entity.PROCESS_INSTANCES, instances, instance -> instanceKeys.add(instance.get("processInstanceKey")));
    List<Map<String, Object>> items = new ArrayList<>();
    for (int from = 0; from < instanceKeys.size(); from += PAGE) {
      ObjectNode incidentFilter = JSON.createObjectNode().put("state", "ACTIVE");
      incidentFilter.set("processInstanceKey", JSON.createObjectNode().set("$in",
          JSON.valueToTree(instanceKeys.subList(from, Math.min(instanceKeys.size(), from + PAGE)))));
      forEachMatch(Entity.INCIDENTS, incidentFilter, incident -> items.add(item(key, Type.RESOLVE_INCIDENT,
          incident.get("incidentKey"), incident.get("processInstanceKey"))));
    }
    return items;
  }

  /** Every item a search finds, page after page; more than {@code maxItems} is refused before anything is stored. */
  private void forEachMatch(Entity entity, ObjectNode filter, java.util.function.Consumer<Map<String, Object>> each) {
    String after = null;
    long seen = 0;
    while (true) {
      ObjectNode request = JSON.createObjectNode();
      request.set("filter", filter);
      ObjectNode page = request.putObject("page").put("limit", 1000);
      if (after != null) {
        page.put("after", after);
      }
      SearchAnswer answer = search.search(entity, request);
      for (Map<String, Object> item : answer.items()) {
        if (++seen > maxItems) {
          throw new BadRequestException("filter", "matches more than " + maxItems + " items (flowpipe.webapp"
              + ".operations.batch-max-items); narrow it");
        }
        each.accept(item);
      }
      if (answer.items().isEmpty() || answer.page().endCursor() == null) {
        return;
      }
      after = answer.page().endCursor();
    }
  }

  private static Map<String, Object> item(String batchKey, Type type, Object itemKey, Object processInstanceKey) {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put(BatchOperationStore.KIND, "item");
    item.put("batchOperationKey", batchKey);
    item.put("operationType", type.name());
    item.put("itemKey", String.valueOf(itemKey));
    item.put("processInstanceKey", String.valueOf(processInstanceKey));
    item.put("state", "ACTIVE");
    item.put("processedDate", null);
    item.put("errorMessage", null);
    return item;
  }

  /** Carries out the batch's items not yet done, page after page, then sets its end state. */
  private void run(Map<String, Object> batch) {
    String key = (String) batch.get("batchOperationKey");
    Type type = Type.valueOf((String) batch.get("batchOperationType"));
    String user = (String) batch.get("user");
    try {
      while (!Thread.currentThread().isInterrupted()) {
        List<SearchHits.Hit> page;
        try {
          page = store.items(key, "ACTIVE", 0, PAGE).hits();
        } catch (RuntimeException e) {
          // e.g. the store still recovering after a start: the batch waits for it rather than stopping until the next
          LOG.info("batch operation {} waits for the store: {}", key, e.toString());
          Thread.sleep(RETRY_PAUSE.toMillis());
          continue;
        }
        if (page.isEmpty()) {
          updateCounts(batch); // a stop after the last item's outcome but before the counts: the end is set here
          break;
        }
        List<CompletableFuture<Boolean>> running = new ArrayList<>();
        for (SearchHits.Hit hit : page) {
          Map<String, Object> item = new LinkedHashMap<>(hit.source());
          running.add(CompletableFuture.supplyAsync(() -> carryOut(type, item, user), workers));
        }
        CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get();
        try {
          updateCounts(batch);
        } catch (RuntimeException e) {
          LOG.info("batch operation {}: counts not stored yet: {}", key, e.toString()); // the next page stores them
        }
        long later = running.stream().filter(ended -> !ended.join()).count();
        if (later > 0) {
          LOG.info("batch operation {}: {} items found the engine unreachable; sent again in {}", key, later,
              RETRY_PAUSE);
          Thread.sleep(RETRY_PAUSE.toMillis());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // stopping: what is not done stays active for the next start
    } catch (RuntimeException | java.util.concurrent.ExecutionException e) {
      LOG.warn("batch operation {} stopped; it goes on at the next start: {}", key, e.toString());
    }
  }

  /**
   * Sends one item's command and stores its outcome; false where it stays active to be sent again, also where the
   * outcome could not be stored (the store unreachable for now): sent again, a done command is found done.
   */
  private boolean carryOut(Type type, Map<String, Object> item, String user) {
    try {
      return carryOutOnce(type, item, user);
    } catch (RuntimeException e) {
      LOG.info("batch item {} sent again later: {}", item.get("itemKey"), e.toString());
      return false;
    }
  }

  private boolean carryOutOnce(Type type, Map<String, Object> item, String user) {
    long itemKey = Long.parseLong((String) item.get("itemKey"));
    String state;
    String error = null;
    try {
      if (type == Type.CANCEL_PROCESS_INSTANCE) {
        engine.cancelProcessInstance(itemKey);
      } else {
        incidents.resolve(itemKey);
      }
      state = "COMPLETED";
    } catch (EngineCommandException e) {
      switch (e.kind()) {
        case UNAVAILABLE, TIMED_OUT -> {
          OperationAudit.logItem(user, type.name(), (String) item.get("itemKey"), "sent again later: " + e.getMessage());
          return false;
        }
        case NOT_FOUND -> {
          state = alreadyDone.test(type, itemKey) ? "COMPLETED" : "SKIPPED";
          error = "COMPLETED".equals(state) ? null : e.getMessage();
        }
        default -> {
          state = "FAILED";
          error = e.getMessage();
        }
      }
    }
    item.put("state", state);
    item.put("processedDate", clock.instant().toString());
    item.put("errorMessage", error);
    store.putItem(item);
    OperationAudit.logItem(user, type.name(), (String) item.get("itemKey"),
        state + (error == null ? "" : ": " + error));
    return true;
  }

  private void updateCounts(Map<String, Object> batch) {
    String key = (String) batch.get("batchOperationKey");
    long completed = store.items(key, "COMPLETED", 0, 0).total() + store.items(key, "SKIPPED", 0, 0).total();
    long failed = store.items(key, "FAILED", 0, 0).total();
    long active = store.items(key, "ACTIVE", 0, 0).total();
    batch.put("operationsCompletedCount", completed);
    batch.put("operationsFailedCount", failed);
    if (active == 0) {
      batch.put("state", failed == 0 ? "COMPLETED" : completed == 0 ? "FAILED" : "PARTIALLY_COMPLETED");
      batch.put("endDate", Instant.from(clock.instant()).toString());
    }
    store.putBatch(batch);
  }

  @Override
  public void close() throws InterruptedException {
    runner.shutdownNow();
    workers.shutdownNow();
    runner.awaitTermination(5, TimeUnit.SECONDS);
  }
}
