package dev.flowpipe.writer.batch;

import dev.flowpipe.writer.handler.DocumentChange;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The documents changed since the last flush, one per id, in first-seen order: many records about one instance become
 * one write. Tracks the highest record position it covers (acknowledged once the buffer is durable), when its oldest
 * change arrived, and an estimate of its memory.
 */
public final class DocumentBuffer {

  /** Larger documents (big variables) are read back from the store rather than kept in memory. */
  private static final long MAX_REMEMBERED_BYTES = 16 * 1024;

  private final Map<String, PendingDocument> documents = new LinkedHashMap<>();
  // for a batch: per key it was taken with, the version its bulk writes (a null state where the bulk reads the base
  // from the store first). Not its live documents, which the bulk thread removes as it writes them: a later change of
  // a document in flight starts from this version, since the cache learns it only when the batch is settled
  private Map<String, RecentDocuments.Known> taken = Map.of();
  // documents here that wait for a bulk in flight to read their base: this buffer cannot be written before it ends
  private int waitingForInFlight;
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
    add(changes, position, recordTimestamp, nowNanos, List.of());
  }

  /**
   * Folds one record's changes in while the batches {@code inFlight} (oldest first) are being written. A document one
   * of them holds starts from the version the latest such batch writes, not from the cache, which does not know that
   * version yet; where that batch reads the base from the store, the document waits for it (see {@link #settle}) and
   * this buffer waits too ({@link #waitsForInFlight}).
   */
  public void add(
      List<DocumentChange> changes, long position, long recordTimestamp, long nowNanos, List<DocumentBuffer> inFlight) {
    if (documents.isEmpty() && !changes.isEmpty()) {
      oldestNanos = nowNanos;
      oldestRecordTimestamp = recordTimestamp;
    }
    for (DocumentChange change : changes) {
      String key = key(change.index(), change.id());
      PendingDocument document = documents.get(key);
      if (document == null) {
        document = new PendingDocument(change.index(), change.id());
        documents.put(key, document);
        startFromKnownVersion(key, document, inFlight, !change.creates());
      }
      estimatedBytes -= document.estimatedBytes();
      document.add(change);
      estimatedBytes += document.estimatedBytes();
    }
    lastPosition = Math.max(lastPosition, position);
    recordsSinceAck++;
  }

  /**
   * Gives a document without a base the version of it the latest batch in flight writes, or else (with
   * {@code mayUseCache}) the cache's; counts it as waiting where a batch in flight still reads that version from the
   * store. Without either, the bulk that writes it reads its base from the store.
   */
  private void startFromKnownVersion(
      String key, PendingDocument document, List<DocumentBuffer> inFlight, boolean mayUseCache) {
    RecentDocuments.Known inFlightVersion = heldBy(inFlight, key);
    var known = inFlightVersion != null ? inFlightVersion : mayUseCache ? recent.get(key) : null;
    if (known != null && known.state() != null) {
      document.base(known.state(), known.position());
    } else if (inFlightVersion != null) {
      waitingForInFlight++;
    }
  }

  /** The version of {@code key} the latest of these batches writes, or null when none holds it. */
  private static RecentDocuments.Known heldBy(List<DocumentBuffer> batches, String key) {
    for (int i = batches.size() - 1; i >= 0; i--) {
      RecentDocuments.Known version = batches.get(i).taken.get(key);
      if (version != null) {
        return version;
      }
    }
    return null;
  }

  /**
   * Whether a document here waits for a bulk in flight to read its base: writing this buffer now would read the
   * store's copy from before that bulk.
   */
  public boolean waitsForInFlight() {
    return waitingForInFlight > 0;
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
    if (waitingForInFlight > 0) {
      throw new IllegalStateException(waitingForInFlight + " documents still wait for a bulk in flight");
    }
    DocumentBuffer batch = new DocumentBuffer(RecentDocuments.log());
    batch.documents.putAll(documents);
    Map<String, RecentDocuments.Known> versions = new HashMap<>(documents.size() * 2);
    // the states are not copied: once a document has its base, nothing changes its state until the batch is settled
    documents.forEach((key, document) ->
        versions.put(key, new RecentDocuments.Known(document.state(), document.position())));
    batch.taken = versions;
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

  /** {@link #settle(DocumentBuffer, boolean, List)} of the only batch in flight, its position not acknowledged. */
  public void settle(DocumentBuffer batch) {
    settle(batch, batch.documents.isEmpty(), List.of());
  }

  /**
   * Takes back the oldest batch in flight once its bulk has ended: what it wrote goes into the cache, and what it could
   * not write comes back to be written again, folded with the later changes of the same documents, unless a batch
   * still in flight writes a later version of it anyway. Documents that waited for the batch start from the version
   * it wrote.
   *
   * @param acknowledged whether the batch's position was acknowledged; if not, its records count here again, to be
   *     acknowledged with the next bulk
   * @param stillInFlight the later batches, oldest first
   */
  public void settle(DocumentBuffer batch, boolean acknowledged, List<DocumentBuffer> stillInFlight) {
    batch.recent.applyTo(recent);
    Map<String, PendingDocument> merged = new LinkedHashMap<>();
    for (var entry : batch.documents.entrySet()) {
      RecentDocuments.Known later = heldBy(stillInFlight, entry.getKey());
      if (later == null || later.state() == null) {
        merged.put(entry.getKey(), entry.getValue());
      } // else a bulk in flight writes a version that started from this one
    }
    if (!merged.isEmpty()) {
      for (var entry : documents.entrySet()) {
        merged.merge(entry.getKey(), entry.getValue(), PendingDocument::newest);
      }
      documents.clear();
      documents.putAll(merged);
      oldestNanos = oldestNanos < 0 ? batch.oldestNanos : Math.min(oldestNanos, batch.oldestNanos);
      oldestRecordTimestamp = oldestRecordTimestamp < 0
          ? batch.oldestRecordTimestamp
          : Math.min(oldestRecordTimestamp, batch.oldestRecordTimestamp);
    }
    if (!acknowledged) {
      recordsSinceAck += batch.recordsSinceAck;
      lastPosition = Math.max(lastPosition, batch.lastPosition);
    }
    estimatedBytes = 0;
    waitingForInFlight = 0;
    for (var entry : documents.entrySet()) {
      PendingDocument document = entry.getValue();
      if (!document.hasBase()) {
        startFromKnownVersion(entry.getKey(), document, stillInFlight, true);
      }
      estimatedBytes += document.estimatedBytes();
    }
    if (documents.isEmpty()) {
      oldestNanos = -1;
      oldestRecordTimestamp = -1;
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
