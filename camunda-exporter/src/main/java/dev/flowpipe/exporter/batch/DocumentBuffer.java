package dev.flowpipe.exporter.batch;

import dev.flowpipe.exporter.handler.DocumentChange;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The documents changed since the last flush, one per id, in first-seen order: many records about one instance become
 * one write. Tracks the highest record position it covers (acknowledged once the buffer is durable), when its oldest
 * change arrived, and an estimate of its memory.
 */
public final class DocumentBuffer {

  /** Larger documents (big variables) are read back from the store rather than kept in memory. */
  private static final long MAX_REMEMBERED_BYTES = 16 * 1024;

  private final Map<String, PendingDocument> documents = new LinkedHashMap<>();
  // for a batch: the keys it was taken with. Not its live documents, which the bulk thread removes as it writes them:
  // a document the bulk has written but the export thread has not settled yet must still wait for the batch, since the
  // cache learns the written version only at settle
  private Set<String> taken = Set.of();
  private final RecentDocuments recent;
  private long lastPosition = -1;
  private long recordsSinceAck;
  private long oldestNanos = -1;
  private long oldestRecordTimestamp = -1;
  private long estimatedBytes;

  public DocumentBuffer(RecentDocuments recent) {
    this.recent = recent;
  }

  /** Folds one record's changes in; a record with no changes still moves the position to acknowledge. */
  public void add(List<DocumentChange> changes, long position, long recordTimestamp, long nowNanos) {
    add(changes, position, recordTimestamp, nowNanos, null);
  }

  /**
   * Folds one record's changes in, while the documents of {@code inFlight} are being written: a document changed
   * again here waits for the outcome of that bulk (see {@link #settle}) instead of starting from the cache, which does
   * not know the version in flight yet.
   */
  public void add(
      List<DocumentChange> changes, long position, long recordTimestamp, long nowNanos, DocumentBuffer inFlight) {
    if (documents.isEmpty() && !changes.isEmpty()) {
      oldestNanos = nowNanos;
      oldestRecordTimestamp = recordTimestamp;
    }
    for (DocumentChange change : changes) {
      String key = key(change.index(), change.id());
      PendingDocument document = documents.get(key);
      if (document == null) {
        boolean afterInFlight = inFlight != null && inFlight.taken.contains(key);
        document = new PendingDocument(change.index(), change.id(), afterInFlight);
        documents.put(key, document);
        var known = change.creates() || afterInFlight ? null : recent.get(key);
        if (known != null) {
          document.base(known.state(), known.position());
        }
      }
      estimatedBytes -= document.estimatedBytes();
      document.add(change);
      estimatedBytes += document.estimatedBytes();
    }
    lastPosition = Math.max(lastPosition, position);
    recordsSinceAck++;
  }

  static String key(String index, String id) {
    return index + '/' + id;
  }

  public boolean isEmpty() {
    return documents.isEmpty();
  }

  public int size() {
    return documents.size();
  }

  public long estimatedBytes() {
    return estimatedBytes;
  }

  public Collection<PendingDocument> documents() {
    return documents.values();
  }

  /** The documents still waiting for their base, to be read from the store. */
  public List<PendingDocument> withoutBase() {
    List<PendingDocument> missing = new ArrayList<>();
    for (PendingDocument document : documents.values()) {
      if (!document.hasBase()) {
        missing.add(document);
      }
    }
    return missing;
  }

  /** Gives a waiting document the state the store holds (an empty one if the store has none). */
  public void resolve(PendingDocument document, Map<String, Object> stored) {
    estimatedBytes -= document.estimatedBytes();
    Object position = stored == null ? null : stored.get("position");
    document.base(stored == null ? Map.of() : stored, position instanceof Number n ? n.longValue() : -1);
    estimatedBytes += document.estimatedBytes();
  }

  /** Drops a document that is durable (or needs no write); remembers what was written for later changes. */
  public void done(PendingDocument document, boolean written) {
    String key = key(document.index(), document.id());
    documents.remove(key);
    estimatedBytes -= document.estimatedBytes();
    if (written && document.estimatedBytes() <= MAX_REMEMBERED_BYTES) {
      recent.put(key, document.state(), document.position());
    } else {
      recent.remove(key); // the store holds something else (newer, or nothing): read it again next time
    }
    if (documents.isEmpty()) {
      oldestNanos = -1;
      oldestRecordTimestamp = -1;
      estimatedBytes = 0;
    }
  }

  /**
   * Moves everything buffered into a new buffer, the batch for one bulk, and leaves this one empty. The batch records
   * what its bulk wrote in a log of its own (it is written on another thread); {@link #settle} brings that back.
   */
  public DocumentBuffer takeBatch() {
    DocumentBuffer batch = new DocumentBuffer(RecentDocuments.log());
    batch.documents.putAll(documents);
    batch.taken = Set.copyOf(documents.keySet());
    batch.lastPosition = lastPosition;
    batch.recordsSinceAck = recordsSinceAck;
    batch.oldestNanos = oldestNanos;
    batch.oldestRecordTimestamp = oldestRecordTimestamp;
    batch.estimatedBytes = estimatedBytes;
    documents.clear();
    recordsSinceAck = 0;
    oldestNanos = -1;
    oldestRecordTimestamp = -1;
    estimatedBytes = 0;
    return batch;
  }

  /**
   * Takes back a batch whose bulk has ended: what it wrote goes into the cache, what it could not write comes back to
   * be written again (before, and folded with, the later changes of the same documents), and documents that waited for
   * the batch start from the version it wrote.
   */
  public void settle(DocumentBuffer batch) {
    batch.recent.applyTo(recent);
    if (!batch.documents.isEmpty()) {
      Map<String, PendingDocument> merged = new LinkedHashMap<>(batch.documents);
      for (var entry : documents.entrySet()) {
        PendingDocument earlier = merged.get(entry.getKey());
        if (earlier == null) {
          merged.put(entry.getKey(), entry.getValue());
        } else {
          earlier.absorb(entry.getValue());
        }
      }
      documents.clear();
      documents.putAll(merged);
      recordsSinceAck += batch.recordsSinceAck;
      oldestNanos = oldestNanos < 0 ? batch.oldestNanos : Math.min(oldestNanos, batch.oldestNanos);
      oldestRecordTimestamp = oldestRecordTimestamp < 0
          ? batch.oldestRecordTimestamp
          : Math.min(oldestRecordTimestamp, batch.oldestRecordTimestamp);
      lastPosition = Math.max(lastPosition, batch.lastPosition);
    }
    estimatedBytes = 0;
    for (PendingDocument document : documents.values()) {
      if (!document.hasBase()) {
        var known = recent.get(key(document.index(), document.id()));
        if (known != null) {
          document.base(known.state(), known.position());
        }
      }
      estimatedBytes += document.estimatedBytes();
    }
  }

  public long lastPosition() {
    return lastPosition;
  }

  public long recordsSinceAck() {
    return recordsSinceAck;
  }

  public void acknowledged() {
    recordsSinceAck = 0;
  }

  /** Nanos since the oldest buffered change arrived, or 0 when empty. */
  public long ageNanos(long nowNanos) {
    return documents.isEmpty() ? 0 : nowNanos - oldestNanos;
  }

  /** Engine timestamp (epoch millis) of the oldest record buffered, or -1 when empty. */
  public long oldestRecordTimestamp() {
    return oldestRecordTimestamp;
  }
}
