package dev.flowpipe.writer.batch;

import dev.flowpipe.writer.handler.DocumentChange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One read-model document with the changes folded into it since it was last written. Its state is complete once it
 * has a base: the entity's first record, the exporter's cache, or the store's copy (read at flush time). Until then
 * the changes wait, in log order.
 */
public final class PendingDocument {

  private final String index;
  private final String id;
  private Map<String, Object> state;
  private final List<DocumentChange> waiting = new ArrayList<>(0);
  private long position = -1;
  private long estimatedBytes;

  PendingDocument(String index, String id) {
    this.index = index;
    this.id = id;
  }

  /** Starts from a known state (a copy of it) that reflects every change up to {@code basePosition}. */
  void base(Map<String, Object> base, long basePosition) {
    state = new LinkedHashMap<>(base);
    // the waiting changes were only counted, not applied: apply those the base does not reflect yet
    position = basePosition;
    for (DocumentChange change : waiting) {
      applyIfNewer(change);
    }
    waiting.clear();
    estimate();
  }

  void add(DocumentChange change) {
    if (change.creates() && change.position() > position) {
      // the change gives the whole document: whatever came before it (a base, changes waiting for one) is superseded
      state = new LinkedHashMap<>();
      waiting.clear();
    }
    if (state == null) {
      waiting.add(change);
      position = Math.max(position, change.position());
    } else {
      applyIfNewer(change);
    }
    estimate();
  }

  private void applyIfNewer(DocumentChange change) {
    // a change at or below the position the state reflects is already in it (a replay)
    if (change.position() > position) {
      change.applyTo(state);
      position = change.position();
    }
  }

  private void estimate() {
    long bytes = 64;
    for (DocumentChange change : waiting) {
      bytes += change.estimatedBytes();
    }
    if (state != null) {
      for (var field : state.entrySet()) {
        bytes += field.getKey().length() + 16 + (field.getValue() instanceof String s ? s.length() : 8);
      }
    }
    estimatedBytes = bytes;
  }

  /** Folds in the changes of a later version that was waiting for this one (this one's bulk failed). */
  void absorb(PendingDocument later) {
    for (DocumentChange change : later.waiting) {
      add(change);
    }
  }

  /**
   * One document from two versions of it: {@code earlier} came back from a failed bulk, {@code later} was buffered
   * since. A version with a base reflects every change up to its position, so of two such the one further on wins;
   * changes still waiting for a base are folded into the other version.
   */
  static PendingDocument newest(PendingDocument earlier, PendingDocument later) {
    if (earlier.hasBase() && later.hasBase()) {
      return later.position >= earlier.position ? later : earlier;
    }
    if (later.hasBase()) {
      later.absorb(earlier);
      return later;
    }
    earlier.absorb(later);
    return earlier;
  }

  public boolean hasBase() {
    return state != null;
  }

  public String index() {
    return index;
  }

  public String id() {
    return id;
  }

  public long position() {
    return position;
  }

  public Map<String, Object> state() {
    return state;
  }

  public long estimatedBytes() {
    return estimatedBytes;
  }
}
