package dev.flowpipe.webapp.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.schema.lease.StoreLease;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.webapp.api.NotFoundException;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.operations.EngineCommands;
import dev.flowpipe.webapp.operations.IncidentResolution;
import dev.flowpipe.webapp.operations.InstanceDeletion;
import dev.flowpipe.webapp.operations.WrittenPositions;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.query.Entity;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batch operations: cancel every active root instance a search filter matches, resolve every active incident of the
 * instances it matches, or migrate or modify every active instance it matches ({@link InstanceChanges}: each at most
 * once across stops). Creating one finds the items (through the search API, so the filter is the search's) and
 * keeps the batch and its items in the store ({@link BatchOperationStore}); the items are then carried out in the
 * background, {@code parallelism} at a time, each item's outcome stored as it ends, the batch's counts after each page.
 *
 * <p><b>One web app at a time runs a batch</b>, however many share the store (the nodes of a cluster): each batch has a
 * lease ({@link StoreLease}, a marker document beside it with the holder's id, renewed every third of
 * {@code leaseExpiry}). The web app that creates a batch holds it from the start; the key is used only once that
 * marker is created, so two web apps never share a key ({@link BatchKeys}). Every web app looks for active batches
 * every third of the expiry ({@link #resume()}, from its start on) and takes one up only where its lease has not moved
 * for the whole expiry: the holder stopped or lost the store. A holder that could not renew for half the expiry sends
 * nothing more until it has; one that finds its lease taken stops the batch. A stopping web app leaves its leases to
 * expire: the next start, or another web app, goes on after the expiry.
 *
 * <p>Taken up after a stop, items not yet done are sent again; one whose instance or incident the engine no longer
 * knows counts as completed where the read model shows it cancelled or resolved (it was done just before the stop:
 * {@link ItemAlreadyDone}), else as skipped. An item whose command found the engine unreachable or got no answer stays
 * active and is sent again after {@code retryPause}: it was not refused, and a stopping node answers so for what is in
 * flight. Nothing here sleeps: pauses are tasks on the injected scheduler, times read from the injected clock.
 *
 * <p><b>Suspend, resume, cancel</b> ({@link #suspend}, {@link #resumeBatch}, {@link #cancel}) write the batch's state,
 * from any web app; the one running the batch reads it before each command and at each page, so it sends nothing more
 * once the batch is no longer active and leaves it (a cancelled batch's open items end {@code CANCELED}). A batch's
 * document is written as the next revision of the one read ({@link BatchOperationStore#replaceBatch}), so a state
 * change and the counts never overwrite each other.
 */
public final class BatchOperations implements AutoCloseable {

  /** The kinds of batch, named as Camunda's REST API v2 names them. */
  public enum Type { CANCEL_PROCESS_INSTANCE, RESOLVE_INCIDENT, MIGRATE_PROCESS_INSTANCE, MODIFY_PROCESS_INSTANCE,
    DELETE_PROCESS_INSTANCE }

  /**
   * A batch's states, as the v2 API names them: {@code ACTIVE} while items are carried out, {@code SUSPENDED} while
   * held ({@link #suspend}), then one end state. {@code CREATED} is never stored here: a batch is active once created.
   */
  public enum State { CREATED, ACTIVE, SUSPENDED, COMPLETED, PARTIALLY_COMPLETED, CANCELED, FAILED }

  /** An item's states: {@code CANCELED} where its batch was cancelled before it was carried out. */
  public enum ItemState { ACTIVE, COMPLETED, SKIPPED, CANCELED, FAILED }

  /** A change of a batch's state that its state does not allow (a 409, as Camunda answers). */
  public static final class StateConflict extends RuntimeException {
    StateConflict(String message) {
      super(message);
    }
  }

  /**
   * How batches run.
   *
   * @param parallelism commands of one batch in flight at once
   * @param maxItems the most items one batch may have
   * @param leaseExpiry how long a batch's holder may leave its lease unrenewed before another web app takes it up
   * @param retryPause how long a batch waits before it sends again what found the engine or the store unreachable
   */
  public record Settings(int parallelism, int maxItems, Duration leaseExpiry, Duration retryPause) {
    public Settings {
      if (parallelism < 1) {
        throw new IllegalArgumentException("batch parallelism must be >= 1, was " + parallelism);
      }
      if (maxItems < 1) {
        throw new IllegalArgumentException("batch max items must be >= 1, was " + maxItems);
      }
      if (leaseExpiry == null || leaseExpiry.compareTo(Duration.ofMillis(300)) < 0) {
        throw new IllegalArgumentException("batch lease expiry must be >= 300ms, was " + leaseExpiry);
      }
      if (retryPause == null || retryPause.isNegative() || retryPause.isZero()) {
        throw new IllegalArgumentException("batch retry pause must be > 0, was " + retryPause);
      }
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(BatchOperations.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PAGE = 100;
  private static final int KEY_ATTEMPTS = 16;
  /** How often a change of a batch's state is read and written again after a concurrent change was first. */
  private static final int STATE_CHANGE_ATTEMPTS = 8;
  /** How long an item the engine no longer knows waits for the read model to show whether it was done. */
  private static final Duration DONE_CHECK_WAIT = Duration.ofSeconds(5);

  private final BatchOperationStore store;
  private final SearchService search;
  private final BatchItemCommands commands;
  private final Clock clock;
  private final ScheduledExecutorService scheduler;
  private final Settings settings;
  private final BatchKeys keys;
  private final String owner;
  private final ExecutorService workers;
  /** The batches this web app runs now, by key. */
  private final BatchItems batchItems;
  private final Map<String, Run> running = new ConcurrentHashMap<>();
  /** The leases of active batches others hold, watched for expiry, by key (touched on the scheduler only). */
  private final Map<String, StoreLease> watched = new HashMap<>();
  private volatile boolean closed;
  private volatile boolean resumed;

  /**
   * @param clock time of dates and leases
   * @param scheduler runs the batches' pages, pauses, lease renewals and the look for batches to take up; closed with
   *     this
   */
  public BatchOperations(BatchOperationStore store, SearchService search, EngineCommands engine,
      InstanceDeletion deletion, WrittenPositions positions, Clock clock, ScheduledExecutorService scheduler, RandomGenerator random,
      Settings settings) {
    this.store = store;
    this.search = search;
    ItemAlreadyDone alreadyDone = new ItemAlreadyDone(search, positions, DONE_CHECK_WAIT);
    this.batchItems = new BatchItems(search, settings.maxItems());
    this.commands = new BatchItemCommands(engine, new IncidentResolution(engine, search), deletion, alreadyDone,
        new InstanceChanges(engine, alreadyDone, store, clock), store, clock);
    this.clock = clock;
    this.scheduler = scheduler;
    this.settings = settings;
    this.keys = new BatchKeys(clock, random);
    this.owner = "webapp-" + ProcessHandle.current().pid() + "-" + Long.toHexString(random.nextLong());
    this.workers = Executors.newFixedThreadPool(settings.parallelism(),
        Thread.ofPlatform().daemon().name("batch-operation-item-", 0).factory());
    // a holder acts only within half the expiry of its last write (StoreLease#holds), and the next write comes a
    // renewal period plus two store round trips later: at a third, a loaded store's 0.5 s (of a 3 s expiry) stopped
    // most of every page between renewals; at a sixth it has a third of the expiry
    Duration renewal = settings.leaseExpiry().dividedBy(6);
    scheduler.scheduleWithFixedDelay(this::renewLeases, renewal.toMillis(), renewal.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The id this web app's leases carry. */
  public String owner() {
    return owner;
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
    Map<String, Object> plan = InstanceChangePlan.read(type, request);
    Run run = reserveKey();
    String key = run.key;
    List<Map<String, Object>> items;
    try {
      items = batchItems.find(key, type, (ObjectNode) filter);
    } catch (RuntimeException e) {
      finishQuietly(run); // nothing was stored under the key: its marker is left done
      throw e;
    }
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
    if (plan != null) {
      batch.put("plan", plan);
    }
    store.addItems(items);
    store.addBatch(batch);
    if (items.isEmpty()) {
      finishQuietly(run);
    } else {
      start(run, batch);
    }
    return batch;
  }

  /** A key no batch of any web app has: one whose lease marker this web app created. */
  private Run reserveKey() {
    BatchKeys.Candidates candidates = keys.next();
    for (int attempt = 0; attempt < KEY_ATTEMPTS; attempt++) {
      String key = candidates.candidate(attempt);
      StoreLease lease = store.lease(key, owner, clock, settings.leaseExpiry());
      if (lease.claimNew(Map.of("batchOperationKey", key))) {
        return new Run(key, lease);
      }
      LOG.info("batch key {} is taken already (another web app chose it in the same millisecond); trying the next",
          key);
    }
    throw new IllegalStateException("no free batch key after " + KEY_ATTEMPTS + " attempts from "
        + candidates.candidate(0));
  }

  public Optional<Map<String, Object>> batch(String key) {
    return store.batch(key);
  }

  public SearchHits items(String batchKey, String state, int from, int size) {
    return store.items(batchKey, state, from, size);
  }

  /** A page of batches as {@code POST /v2/batch-operations/search} asks. */
  SearchHits searchBatches(BatchSearchRequest request) {
    return store.search("batch", request.criteria(), request.sort(), request.from(), request.limit());
  }

  /** A page of items as {@code POST /v2/batch-operation-items/search} asks. */
  SearchHits searchItems(BatchSearchRequest request) {
    return store.search("item", request.criteria(), request.sort(), request.from(), request.limit());
  }

  /**
   * Holds an active batch: the web app running it sends nothing more after the page in flight and leaves it, until
   * {@link #resumeBatch}. 404 unknown, 409 not active.
   */
  public Map<String, Object> suspend(String key) {
    return changeState(key, Set.of(State.ACTIVE), State.SUSPENDED);
  }

  /** Lets a suspended batch go on, here or on whichever web app takes it up first. 404 unknown, 409 not suspended. */
  public Map<String, Object> resumeBatch(String key) {
    Map<String, Object> batch = changeState(key, Set.of(State.SUSPENDED), State.ACTIVE);
    takeUpSoon(key);
    return batch;
  }

  /**
   * Ends an active or suspended batch: what is not done is not carried out, its items end {@code CANCELED} (by the web
   * app that holds the batch, after the page in flight). 404 unknown, 409 ended already.
   */
  public Map<String, Object> cancel(String key) {
    Map<String, Object> batch = changeState(key, Set.of(State.ACTIVE, State.SUSPENDED), State.CANCELED);
    takeUpSoon(key);
    return batch;
  }

  /** Writes a new state over one of the allowed ones, again where a concurrent write (counts, another web app) won. */
  private Map<String, Object> changeState(String key, Set<State> from, State to) {
    for (int attempt = 0; attempt < STATE_CHANGE_ATTEMPTS; attempt++) {
      BatchOperationStore.Versioned read = store.versionedBatch(key)
          .orElseThrow(() -> new NotFoundException("no batch operation " + key));
      Map<String, Object> batch = read.batch();
      State state = State.valueOf((String) batch.get("state"));
      if (!from.contains(state)) {
        throw new StateConflict("batch operation " + key + " is " + state + "; it can be made " + to + " only when "
            + from.stream().map(Enum::name).sorted().toList());
      }
      batch.put("state", to.name());
      if (to == State.CANCELED) {
        batch.put("endDate", clock.instant().toString());
      }
      if (store.replaceBatch(batch, read.revision())) {
        LOG.info("batch operation {}: {} -> {}", key, state, to);
        return batch;
      }
    }
    throw new IllegalStateException("batch operation " + key + " changed " + STATE_CHANGE_ATTEMPTS
        + " times while it was being made " + to);
  }

  /** A resumed or cancelled batch is taken up here at once where no web app holds it (its lease was left done). */
  private void takeUpSoon(String key) {
    if (closed || running.containsKey(key)) {
      return;
    }
    try {
      scheduler.execute(() -> {
        if (closed || running.containsKey(key)) {
          return;
        }
        try {
          StoreLease lease = store.lease(key, owner, clock, settings.leaseExpiry());
          if (lease.tryClaim(Map.of("batchOperationKey", key))) {
            watched.remove(key);
            takeUp(new Run(key, lease));
          }
        } catch (RuntimeException e) {
          LOG.info("batch operation {}: not taken up now ({}); the look for batches does", key, e.toString());
        }
      });
    } catch (RejectedExecutionException e) {
      // closing: the next start or another web app takes it up
    }
  }

  /**
   * From now on, looks for active batches every third of the lease expiry, the first time at once, and takes up those
   * whose lease has expired (a stop left them, here or on another web app). A store that cannot be reached is looked
   * at again at the next round.
   */
  public void resume() {
    if (resumed) {
      return;
    }
    resumed = true;
    Duration every = settings.leaseExpiry().dividedBy(3);
    scheduler.scheduleWithFixedDelay(this::takeUpExpired, 0, every.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void takeUpExpired() {
    if (closed) {
      return;
    }
    try {
      List<Map<String, Object>> active = new ArrayList<>(store.batchesIn(State.ACTIVE.name()));
      // a batch cancelled while no web app held it (suspended, or its holder stopped): its items are still to close
      active.addAll(store.batchesIn(List.of(new Criterion.Equals("state", State.CANCELED.name()),
          new Criterion.Not(new Criterion.Equals("settled", true)))));
      Set<String> activeKeys = new HashSet<>();
      for (Map<String, Object> batch : active) {
        String key = (String) batch.get("batchOperationKey");
        activeKeys.add(key);
        if (running.containsKey(key)) {
          continue;
        }
        StoreLease lease = watched.computeIfAbsent(key,
            k -> store.lease(k, owner, clock, settings.leaseExpiry()));
        if (lease.tryClaim(Map.of("batchOperationKey", key))) {
          watched.remove(key);
          takeUp(new Run(key, lease));
        }
      }
      watched.keySet().retainAll(activeKeys);
    } catch (RuntimeException e) {
      LOG.info("batch operations: active batches not looked at this time ({}); looked at again in {}", e.toString(),
          settings.leaseExpiry().dividedBy(3));
    }
  }

  /** Starts a batch whose lease was just claimed, unless it ended in the meantime (read in real time). */
  private void takeUp(Run run) {
    Optional<Map<String, Object>> batch = store.batch(run.key);
    if (batch.isEmpty() || !runnable(batch.get())) {
      finishQuietly(run);
      return;
    }
    LOG.info("taking up batch operation {} ({}) where it stopped; its lease had expired", run.key,
        batch.get().get("batchOperationType"));
    start(run, new LinkedHashMap<>(batch.get()));
  }

  private void start(Run run, Map<String, Object> batch) {
    run.batch = batch;
    running.put(run.key, run);
    schedule(run, Duration.ZERO);
  }

  private void schedule(Run run, Duration delay) {
    if (closed) {
      return;
    }
    try {
      scheduler.schedule(() -> runPage(run), delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closing: what is not done stays active for the next holder
    }
  }

  /** Renews the lease of every batch running here; one found taken stops here (another web app has it now). */
  private void renewLeases() {
    for (Run run : running.values()) {
      renew(run);
    }
  }

  /** Renews one batch's lease; false where it was not renewed (lost: the batch stops here). */
  private boolean renew(Run run) {
    try {
      run.lease.renew(Map.of("batchOperationKey", run.key));
      return true;
    } catch (StoreLease.LeaseLostException e) {
      LOG.warn("batch operation {}: {}", run.key, e.getMessage());
      running.remove(run.key);
      run.lost = true;
    } catch (RuntimeException e) {
      // the holder sends nothing once its lease is half expired (StoreLease#holds) and tries again next time
      LOG.info("batch operation {}: lease not renewed this time: {}", run.key, e.toString());
    }
    return false;
  }

  /**
   * Carries out one page of the batch's items not yet done, then schedules the next (after {@code retryPause} where
   * some found the engine unreachable); with none left, sets the batch's end state and marks its lease done.
   */
  private void runPage(Run run) {
    if (closed || run.lost) {
      return;
    }
    if (!run.lease.holds() && !renew(run)) {
      schedule(run, settings.retryPause()); // e.g. finding the items took longer than half the expiry
      return;
    }
    List<SearchHits.Hit> page;
    try {
      Map<String, Object> stored = store.batch(run.key).orElseThrow(
          () -> new IllegalStateException("batch operation " + run.key + " is not in the store"));
      if (!State.ACTIVE.name().equals(stored.get("state"))) {
        release(run, stored);
        return;
      }
      page = store.items(run.key, "ACTIVE", 0, PAGE).hits();
    } catch (RuntimeException e) {
      // e.g. the store still recovering after a start: the batch waits for it rather than stopping until the next
      LOG.info("batch operation {} waits for the store: {}", run.key, e.toString());
      schedule(run, settings.retryPause());
      return;
    }
    if (page.isEmpty()) {
      end(run);
      return;
    }
    String user = (String) run.batch.get("user");
    List<CompletableFuture<Boolean>> sent = new ArrayList<>();
    for (SearchHits.Hit hit : page) {
      Map<String, Object> item = new LinkedHashMap<>(hit.source());
      sent.add(CompletableFuture.supplyAsync(() -> carryOut(run, item, user), workers));
    }
    // the scheduler's thread is not held while the commands are out: renewals go on meanwhile
    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))
        .whenComplete((done, failure) -> afterPage(run, sent));
  }

  private void afterPage(Run run, List<CompletableFuture<Boolean>> sent) {
    try {
      updateCounts(run.key, false);
    } catch (RuntimeException e) {
      LOG.info("batch operation {}: counts not stored yet: {}", run.key, e.toString()); // the next page stores them
    }
    long later = sent.stream().filter(item -> !item.isCompletedExceptionally() && !item.join()).count();
    if (later > 0) {
      LOG.info("batch operation {}: {} items not carried out this time (engine unreachable, lease not renewed or"
          + " batch no longer active); looked at again in {}", run.key, later, settings.retryPause());
      schedule(run, settings.retryPause());
    } else {
      schedule(run, Duration.ZERO);
    }
  }

  /** No item left active: the end state (a stop after the last outcome but before the counts is mended here). */
  private void end(Run run) {
    try {
      updateCounts(run.key, false);
      running.remove(run.key);
      run.lease.finish(Map.of("batchOperationKey", run.key));
    } catch (StoreLease.LeaseLostException e) {
      LOG.warn("batch operation {}: {}", run.key, e.getMessage());
    } catch (RuntimeException e) {
      LOG.info("batch operation {}: end not stored yet: {}", run.key, e.toString());
      running.put(run.key, run);
      schedule(run, settings.retryPause());
    }
  }

  /**
   * The batch was suspended, cancelled or ended by someone else: nothing more is sent, a cancelled batch's open items
   * are closed, and its lease is left done (a resumed batch is taken up again by whoever claims it first).
   */
  private void release(Run run, Map<String, Object> stored) {
    running.remove(run.key);
    if (State.CANCELED.name().equals(stored.get("state")) && !Boolean.TRUE.equals(stored.get("settled"))) {
      try {
        closeCanceledItems(run.key);
      } catch (RuntimeException e) {
        LOG.info("batch operation {}: cancelled items not closed yet: {}", run.key, e.toString());
        running.put(run.key, run);
        schedule(run, settings.retryPause());
        return;
      }
    }
    LOG.info("batch operation {} is {}: this web app leaves it", run.key, stored.get("state"));
    finishQuietly(run);
  }

  /** Every item of a cancelled batch not carried out ends CANCELED; the batch's counts and {@code settled} follow. */
  private void closeCanceledItems(String key) {
    List<SearchHits.Hit> open;
    while (!(open = store.items(key, ItemState.ACTIVE.name(), 0, 1000).hits()).isEmpty()) {
      for (SearchHits.Hit hit : open) {
        Map<String, Object> item = new LinkedHashMap<>(hit.source());
        item.put("state", ItemState.CANCELED.name());
        item.put("processedDate", clock.instant().toString());
        store.putItem(item);
      }
    }
    updateCounts(key, true);
  }

  private static boolean runnable(Map<String, Object> batch) {
    return State.ACTIVE.name().equals(batch.get("state"))
        || State.CANCELED.name().equals(batch.get("state")) && !Boolean.TRUE.equals(batch.get("settled"));
  }

  private void finishQuietly(Run run) {
    try {
      run.lease.finish(Map.of("batchOperationKey", run.key));
    } catch (RuntimeException e) {
      LOG.info("batch operation {}: lease not marked done ({}); it expires", run.key, e.toString());
    }
  }

  /**
   * Sends one item's command and stores its outcome; false where it stays active to be sent again, also where the
   * outcome could not be stored (the store unreachable for now): sent again, a done command is found done.
   */
  private boolean carryOut(Run run, Map<String, Object> item, String user) {
    if (closed || run.lost || !run.lease.holds()) {
      return false; // not sure to hold the batch any more: nothing is sent until the lease is renewed
    }
    try {
      // suspended or cancelled meanwhile (on any web app): nothing more is sent; the next page leaves the batch
      if (!store.batch(run.key).map(batch -> State.ACTIVE.name().equals(batch.get("state"))).orElse(false)) {
        return false;
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> plan = (Map<String, Object>) run.batch.get("plan");
      return commands.carryOut(Type.valueOf((String) run.batch.get("batchOperationType")), plan, item, user);
    } catch (RuntimeException e) {
      LOG.info("batch item {} sent again later: {}", item.get("itemKey"), e.toString());
      return false;
    }
  }

  /**
   * Stores the batch's counts, and its end state where an active batch has no item left active; a state someone else
   * wrote meanwhile (suspended, cancelled) is kept: the write is of the next revision of what was read.
   */
  private void updateCounts(String key, boolean settle) {
    long completed = store.items(key, "COMPLETED", 0, 0).total() + store.items(key, "SKIPPED", 0, 0).total();
    long failed = store.items(key, "FAILED", 0, 0).total();
    long active = store.items(key, "ACTIVE", 0, 0).total();
    for (int attempt = 0; attempt < STATE_CHANGE_ATTEMPTS; attempt++) {
      BatchOperationStore.Versioned read = store.versionedBatch(key)
          .orElseThrow(() -> new IllegalStateException("batch operation " + key + " is not in the store"));
      Map<String, Object> batch = read.batch();
      batch.put("operationsCompletedCount", completed);
      batch.put("operationsFailedCount", failed);
      if (active == 0 && State.ACTIVE.name().equals(batch.get("state"))) {
        batch.put("state", failed == 0 ? "COMPLETED" : completed == 0 ? "FAILED" : "PARTIALLY_COMPLETED");
        batch.put("endDate", clock.instant().toString());
      }
      if (settle) {
        batch.put("settled", true);
      }
      if (store.replaceBatch(batch, read.revision())) {
        return;
      }
    }
    throw new IllegalStateException("batch operation " + key + " changed too often to store its counts");
  }

  @Override
  public void close() throws InterruptedException {
    closed = true;
    scheduler.shutdownNow();
    workers.shutdownNow();
    scheduler.awaitTermination(5, TimeUnit.SECONDS);
    workers.awaitTermination(5, TimeUnit.SECONDS);
  }

  /** A batch this web app holds the lease of. */
  private static final class Run {
    final String key;
    final StoreLease lease;
    volatile Map<String, Object> batch;
    volatile boolean lost;

    Run(String key, StoreLease lease) {
      this.key = key;
      this.lease = lease;
    }
  }
}
