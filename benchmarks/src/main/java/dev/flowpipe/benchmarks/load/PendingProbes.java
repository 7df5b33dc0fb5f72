package dev.flowpipe.benchmarks.load;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Data availability of many probe instances at once, seen in several places: one poller asks each place, every 10 ms,
 * for all probes it has not shown yet, in one search. A poller per probe would add a search per probe every 10 ms and
 * measure its own load (DESIGN.md); this one adds at most one search per place.
 */
public final class PendingProbes implements AutoCloseable {

  /**
   * Where a completed probe becomes visible: {@code completedAt} answers, of the keys asked for, those visible as
   * completed now, each with the engine's completion time (epoch ms).
   */
  public record Place(String name, Function<List<Long>, Map<Long, Long>> completedAt) {}

  /** One probe's visibility per place, in ms after the engine's completion; -1 where it was not seen in time. */
  public record Probe(long key, Map<String, Long> millis) {}

  private static final long POLL_MILLIS = 10;

  private final List<Place> places;
  private final long deadlineMillis;
  private final Map<Long, Map<String, Long>> pending = new ConcurrentHashMap<>();
  private final Map<Long, Long> addedAt = new ConcurrentHashMap<>();
  private final List<Probe> done = new ArrayList<>();
  private final Thread poller;

  /** @param deadlineMillis how long a probe may stay pending before the places that have not shown it count it unseen */
  public PendingProbes(List<Place> places, long deadlineMillis) {
    this.places = List.copyOf(places);
    this.deadlineMillis = deadlineMillis;
    this.poller = Thread.ofPlatform().daemon().name("pending-probes").start(this::pollUntilInterrupted);
  }

  /** A probe instance that has completed in the engine. */
  public void add(long key) {
    addedAt.put(key, System.currentTimeMillis());
    pending.put(key, new ConcurrentHashMap<>());
  }

  private void pollUntilInterrupted() {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        pollOnce();
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // a failed search (e.g. a timeout under load) is not a visibility; the next round asks again
      }
    }
  }

  private void pollOnce() {
    for (Place place : places) {
      List<Long> keys = pending.entrySet().stream().filter(e -> !e.getValue().containsKey(place.name()))
          .map(Map.Entry::getKey).toList();
      if (keys.isEmpty()) {
        continue;
      }
      Map<Long, Long> completed = place.completedAt().apply(keys);
      long now = System.currentTimeMillis();
      completed.forEach((key, endedAt) -> {
        Map<String, Long> seen = pending.get(key);
        if (seen != null) {
          seen.put(place.name(), Math.max(0, now - endedAt));
        }
      });
    }
    long now = System.currentTimeMillis();
    for (Long key : List.copyOf(pending.keySet())) {
      Map<String, Long> seen = pending.get(key);
      if (seen.size() == places.size() || now - addedAt.get(key) > deadlineMillis) {
        finish(key, seen);
      }
    }
  }

  private synchronized void finish(long key, Map<String, Long> seen) {
    Map<String, Long> millis = new HashMap<>();
    places.forEach(p -> millis.put(p.name(), seen.getOrDefault(p.name(), -1L)));
    done.add(new Probe(key, Map.copyOf(millis)));
    pending.remove(key);
    addedAt.remove(key);
  }

  /** Probes that every place has shown or whose deadline has passed. */
  public synchronized List<Probe> finished() {
    return List.copyOf(done);
  }

  public int stillPending() {
    return pending.size();
  }

  /** Waits (up to the deadline) for the probes still pending, then stops the poller. */
  @Override
  public void close() throws InterruptedException {
    long until = System.currentTimeMillis() + deadlineMillis + 1_000;
    while (!pending.isEmpty() && System.currentTimeMillis() < until) {
      Thread.sleep(50);
    }
    poller.interrupt();
    poller.join(5_000);
  }
}
