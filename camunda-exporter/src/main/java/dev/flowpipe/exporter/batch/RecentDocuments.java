package dev.flowpipe.exporter.batch;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The documents this exporter wrote last, as written, so that a later change (an instance completing seconds after
 * it started) folds onto them without reading the store. Bounded: least recently used ones are forgotten, and a
 * forgotten document is read from the store when it changes again.
 */
public final class RecentDocuments {

  /** A document as written, with the position it reflects. */
  public record Known(Map<String, Object> state, long position) {}

  private final Map<String, Known> documents;

  public RecentDocuments(int capacity) {
    this.documents =
        new LinkedHashMap<>(Math.min(capacity, 1 << 16), 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Known> eldest) {
            return size() > capacity;
          }
        };
  }

  Known get(String key) {
    return documents.get(key);
  }

  void put(String key, Map<String, Object> state, long position) {
    documents.put(key, new Known(state, position));
  }

  void remove(String key) {
    documents.remove(key);
  }

  public int size() {
    return documents.size();
  }
}
