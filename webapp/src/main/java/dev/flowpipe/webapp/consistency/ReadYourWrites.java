package dev.flowpipe.webapp.consistency;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Waits, up to each request's timeout, until the read model holds what clients asked for, then makes it searchable;
 * without holding a thread per wait.
 *
 * <p>A process instance key is looked up with a real-time get (it sees a document as soon as the exporter wrote it,
 * before any refresh). A position P of a partition is reached when the partition's export position (the exporter's
 * marker: every record up to it is durable) is at P or beyond, also read with a real-time get. A document at P or
 * later would not say as much: a bulk can be partly written (some items refused for now, written again later), and
 * with several bulks in flight a later one can land first. Once the condition holds, the read model's indices are
 * refreshed, so the search that follows sees all of it, not only the documents the refresh interval already exposed.
 *
 * <p>No request thread asks the store anything: a request is a pending wait, and one poller on the {@code scheduler}
 * looks at the store for all of them every {@code pollInterval}: one multi-get of the export positions and one of the
 * instance keys per round, however many wait, and one refresh for all the waits a round completes. What a refresh made
 * searchable is remembered (the export positions read before it, the instance keys), so a request for what is already
 * searchable is answered at once, with neither a store call nor a refresh. At most {@code maxWaits} wait at once; one
 * more is refused ({@link TooManyWaitsException}) rather than queued, so the waits' memory stays bounded.
 */
public final class ReadYourWrites implements AutoCloseable {

  /** Instance keys remembered as searchable; the set starts again when full (a forgotten key costs one refresh). */
  private static final int REMEMBERED_KEYS = 10_000;

  private final ReadModel model;
  private final Clock clock;
  private final Executor answers;
  private final int maxWaits;
  private final ScheduledFuture<?> poller;
  private final ConcurrentLinkedQueue<Wait> pending = new ConcurrentLinkedQueue<>();
  private final AtomicInteger waiting = new AtomicInteger();
  private final Map<Integer, Long> searchablePositions = new ConcurrentHashMap<>();
  private final Set<Long> searchableInstances = ConcurrentHashMap.newKeySet();

  /**
   * @param clock the time that deadlines and waited durations are measured in
   * @param scheduler runs the poller every {@code pollInterval}
   * @param answers completes the waits' futures: what a caller chains to them (the search) runs there, never on the
   *     poller
   * @param maxWaits how many requests may wait at once
   */
  public ReadYourWrites(ReadModel model, Clock clock, ScheduledExecutorService scheduler, Executor answers,
      Duration pollInterval, int maxWaits) {
    this.model = model;
    this.clock = clock;
    this.answers = answers;
    this.maxWaits = maxWaits;
    this.poller = scheduler.scheduleWithFixedDelay(this::poll, pollInterval.toNanos(), pollInterval.toNanos(),
        TimeUnit.NANOSECONDS);
  }

  /**
   * Whether the wait reached its condition, and how long it took.
   *
   * @param reached the read model holds everything asked for; false when the timeout ran out first
   * @param waited the time spent waiting and refreshing
   */
  public record Outcome(boolean reached, Duration waited) {}

  /**
   * The outcome of waiting for {@code request}: completed at once when a refresh already made its condition
   * searchable, else by the poller (the store's failure as the future's).
   *
   * @throws TooManyWaitsException when {@code maxWaits} requests wait already
   */
  public CompletableFuture<Outcome> await(ConsistencyRequest request) {
    Instant start = clock.instant();
    if (searchable(request)) {
      return CompletableFuture.completedFuture(new Outcome(true, Duration.ZERO));
    }
    if (waiting.incrementAndGet() > maxWaits) {
      waiting.decrementAndGet();
      throw new TooManyWaitsException(maxWaits);
    }
    Wait wait = new Wait(request, start, start.plus(request.timeout()), new CompletableFuture<>());
    pending.add(wait);
    return wait.outcome;
  }

  /** How many requests wait now. */
  public int waiting() {
    return waiting.get();
  }

  /** One round of the poller: looks up every pending wait's condition and completes those reached or out of time. */
  void poll() {
    List<Wait> round = new ArrayList<>(pending);
    if (round.isEmpty()) {
      return;
    }
    try {
      SearchStore store = model.store();
      Lookup found = lookup(store, round.stream().map(Wait::request).toList());
      List<Wait> reached = round.stream().filter(wait -> found.reached(wait.request())).toList();
      if (!reached.isEmpty()) {
        makeSearchable(store, reached.stream().map(Wait::request).toList(), found);
      }
      Instant now = clock.instant();
      for (Wait wait : round) {
        if (reached.contains(wait)) {
          end(wait, new Outcome(true, Duration.between(wait.start(), now)));
        } else if (!now.isBefore(wait.deadline())) {
          end(wait, new Outcome(false, Duration.between(wait.start(), now)));
        }
      }
    } catch (RuntimeException e) {
      // the store cannot be read: every waiting request gets the error (503), none waits on blindly
      for (Wait wait : round) {
        if (pending.remove(wait)) {
          waiting.decrementAndGet();
          answers.execute(() -> wait.outcome().completeExceptionally(e));
        }
      }
    }
  }

  private void end(Wait wait, Outcome outcome) {
    if (pending.remove(wait)) {
      waiting.decrementAndGet();
      answers.execute(() -> wait.outcome().complete(outcome));
    }
  }

  /** The export positions of the partitions and the presence of the instances the requests name: two reads at most. */
  private Lookup lookup(SearchStore store, List<ConsistencyRequest> requests) {
    Map<String, Integer> partitions = new HashMap<>();
    Set<String> instances = new LinkedHashSet<>();
    for (ConsistencyRequest request : requests) {
      request.positions().forEach(
          p -> partitions.put(ReadModelIndex.exportPositionId(p.partitionId()), p.partitionId()));
      if (request.processInstanceKey() != null && !searchableInstances.contains(request.processInstanceKey())) {
        instances.add(String.valueOf(request.processInstanceKey()));
      }
    }
    Map<Integer, Long> exported = new HashMap<>();
    if (!partitions.isEmpty()) {
      store.getAll(model.index(ReadModelIndex.EXPORT_POSITION), List.copyOf(partitions.keySet())).forEach(
          (id, marker) -> {
            if (marker.get("position") instanceof Number position && partitions.containsKey(id)) {
              exported.put(partitions.get(id), position.longValue());
            }
          });
    }
    Set<Long> written = new java.util.HashSet<>(searchableInstances);
    if (!instances.isEmpty()) {
      store.getAll(model.index(ReadModelIndex.PROCESS_INSTANCE), List.copyOf(instances))
          .keySet().forEach(id -> written.add(Long.valueOf(id)));
    }
    return new Lookup(exported, written);
  }

  /** Refreshes the read model, unless all the requests ask for is searchable already, and remembers what now is. */
  private void makeSearchable(SearchStore store, List<ConsistencyRequest> requests, Lookup found) {
    if (requests.stream().allMatch(this::searchable)) {
      return;
    }
    refresh(store);
    // what the lookup saw before the refresh is searchable after it
    found.exported().forEach((partition, position) -> searchablePositions.merge(partition, position, Math::max));
    if (searchableInstances.size() > REMEMBERED_KEYS) {
      searchableInstances.clear();
    }
    for (ConsistencyRequest request : requests) {
      if (request.processInstanceKey() != null) {
        searchableInstances.add(request.processInstanceKey());
      }
    }
  }

  private boolean searchable(ConsistencyRequest request) {
    if (request.processInstanceKey() != null && !searchableInstances.contains(request.processInstanceKey())) {
      return false;
    }
    return request.positions().stream().allMatch(
        p -> searchablePositions.getOrDefault(p.partitionId(), -1L) >= p.position());
  }

  private void refresh(SearchStore store) {
    model.refreshEntities(store);
  }

  @Override
  public void close() {
    poller.cancel(false);
    for (Wait wait : pending) {
      end(wait, new Outcome(false, Duration.between(wait.start(), clock.instant())));
    }
  }

  private record Wait(ConsistencyRequest request, Instant start, Instant deadline, CompletableFuture<Outcome> outcome) {
    // identity, not value: two requests alike are two waits
    @Override
    public boolean equals(Object other) {
      return this == other;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(this);
    }
  }

  /** What one round found: export positions per partition, and instance keys the read model holds. */
  private record Lookup(Map<Integer, Long> exported, Set<Long> written) {
    boolean reached(ConsistencyRequest request) {
      if (request.processInstanceKey() != null && !written.contains(request.processInstanceKey())) {
        return false;
      }
      return request.positions().stream()
          .allMatch(p -> exported.getOrDefault(p.partitionId(), -1L) >= p.position());
    }
  }
}
