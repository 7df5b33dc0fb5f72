package dev.flowpipe.writer.batch;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The documents this exporter wrote last, as written, so that a later change (an instance completing seconds after
 * it started) folds onto them without reading the store. Bounded: least recently used ones are forgotten, and a
 * forgotten document is read from the store when it changes again.
 */
public final class RecentDocuments {

  /** A document as written, with the position it reflects. */
  public record Known(Map<String, Object> state, long position) {}

  private final Map<String, Known> documents;
  // only in a log (see log()): keys whose stored copy is no longer what was written here
  private final Set<String> forgotten;

  public RecentDocuments(int capacity) {
    this(capacity, null);
  }

  private RecentDocuments(int capacity, Set<String> forgotten) {
    this.forgotten = forgotten;
    this.documents =
        new LinkedHashMap<>(Math.min(capacity, 1 << 16), 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Known> eldest) {
            return size() > capacity;
          }
        };
  }

  /**
   * An unbounded record of what one bulk wrote and what it made stale, kept apart from the exporter's cache because the
   * bulk runs on another thread; {@link #applyTo} replays it into the cache afterwards.
   */
  static RecentDocuments log() {
    return new RecentDocuments(Integer.MAX_VALUE, new HashSet<>());
  }

  /** Replays this log into {@code cache}: written documents remembered, stale ones forgotten. */
  void applyTo(RecentDocuments cache) {
    documents.forEach((key, known) -> cache.put(key, known.state(), known.position()));
    forgotten.forEach(cache::remove);
  }

  Known get(String key) {
    return documents.get(key);
  }

  void put(String key, Map<String, Object> state, long position) {
    documents.put(key, new Known(state, position));
    if (forgotten != null) {
      forgotten.remove(key);
    }
  }

  void remove(String key) {
    documents.remove(key);
    if (forgotten != null) {
      forgotten.add(key);
    }
  }

  public int size() {
    return documents.size();
  }
}
