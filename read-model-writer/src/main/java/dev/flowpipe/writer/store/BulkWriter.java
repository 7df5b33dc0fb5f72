package dev.flowpipe.writer.store;

import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.RequestTooLargeException;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.writer.batch.DocumentBuffer;
import dev.flowpipe.writer.batch.PendingDocument;
import dev.flowpipe.writer.error.DeadLetters;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a buffer to the store and reports what is durable. Documents still waiting for their base are read from the
 * store first (one multi-get per index), then given what they take from other documents ({@link DerivedFields}). Item errors are sorted in one place: already applied (409) and written ones
 * leave the buffer, overload and server errors and the store's refusals (401/403) stay for the next attempt, everything
 * else goes to the dead letters.
 * A bulk the store refuses as too large (413) is split in halves until it passes; a single document that is still too
 * large is a dead letter.
 */
public final class BulkWriter {

  /**
   * What one flush achieved.
   *
   * @param refusal the store's reason when it refused items for what it is set to (401/403: see
   *     {@link BulkOutcome.ItemFailure#storeRefuses()}), counted in {@code retryable}; null when it did not
   */
  public record Result(int written, int superseded, int deadLettered, int retryable, String refusal) {
    public boolean complete() {
      return retryable == 0;
    }
  }

  private final SearchStore store;
  private final DeadLetters deadLetters;
  private final boolean refresh;
  private final ExportPositionMarker exportPosition;
  private final DerivedFields derivedFields;
  private final DeletedInstanceFilter deletedInstances;

  /**
   * @param refresh ask the store to make each bulk searchable before it answers (see {@link SearchStore#bulk})
   * @param derivedFields fills in what documents take from others (names from the BPMN, root instances)
   * @param deletedInstances tells the documents of instances deleted from the read model, which are not written
   */
  public BulkWriter(SearchStore store, DeadLetters deadLetters, boolean refresh, ExportPositionMarker exportPosition,
      DerivedFields derivedFields, DeletedInstanceFilter deletedInstances) {
    this.store = store;
    this.deadLetters = deadLetters;
    this.refresh = refresh;
    this.exportPosition = exportPosition;
    this.derivedFields = derivedFields;
    this.deletedInstances = deletedInstances;
  }

  /** After an acknowledgement: every record up to {@code position} is durable (see {@link ExportPositionMarker}). */
  public void markExported(long position) {
    exportPosition.mark(position);
  }

  /** Writes what the buffer holds; the buffer keeps only what must be tried again. */
  public Result flush(DocumentBuffer buffer) {
    resolveBases(buffer);
    int[] counts = new int[4];
    // a deleted instance's documents only come from a replay: dropped, as a superseded write (ADR 0019)
    if (deletedInstances.any()) {
      for (PendingDocument document : List.copyOf(buffer.documents())) {
        if (deletedInstances.deleted(document)) {
          buffer.done(document, false);
          counts[1]++;
        }
      }
    }
    derivedFields.fill(buffer.documents(), store);
    List<DocumentWrite> writes = new ArrayList<>(buffer.size());
    Map<DocumentWrite, PendingDocument> pending = new IdentityHashMap<>();
    for (PendingDocument document : buffer.documents()) {
      DocumentWrite write =
          new DocumentWrite(document.index(), document.id(), document.position(), document.state());
      writes.add(write);
      pending.put(write, document);
    }
    String[] refusal = new String[1];
    write(writes, buffer, pending, counts, refusal);
    return new Result(counts[0], counts[1], counts[2], counts[3], refusal[0]);
  }

  private void resolveBases(DocumentBuffer buffer) {
    Map<String, List<PendingDocument>> byIndex = new LinkedHashMap<>();
    for (PendingDocument document : buffer.withoutBase()) {
      byIndex.computeIfAbsent(document.index(), i -> new ArrayList<>()).add(document);
    }
    Map<String, List<String>> idsByIndex = new LinkedHashMap<>();
    byIndex.forEach((index, documents) -> idsByIndex.put(index, documents.stream().map(PendingDocument::id).toList()));
    Map<String, Map<String, Map<String, Object>>> stored = store.getAll(idsByIndex);
    for (var entry : byIndex.entrySet()) {
      for (PendingDocument document : entry.getValue()) {
        buffer.resolve(document, stored.getOrDefault(entry.getKey(), Map.of()).get(document.id()));
      }
    }
  }

  private void write(List<DocumentWrite> writes, DocumentBuffer buffer, Map<DocumentWrite, PendingDocument> pending,
      int[] counts, String[] refusal) {
    if (writes.isEmpty()) {
      return;
    }
    BulkOutcome outcome;
    try {
      outcome = store.bulk(writes, refresh);
    } catch (RequestTooLargeException e) {
      if (writes.size() == 1) {
        DocumentWrite write = writes.getFirst();
        deadLetters.add(write, 413, "document too large for the store: " + e.getMessage());
        buffer.done(pending.get(write), false);
        counts[2]++;
        return;
      }
      int half = writes.size() / 2;
      write(writes.subList(0, half), buffer, pending, counts, refusal);
      write(writes.subList(half, writes.size()), buffer, pending, counts, refusal);
      return;
    }
    for (DocumentWrite write : outcome.written()) {
      buffer.done(pending.get(write), true);
      counts[0]++;
    }
    for (DocumentWrite write : outcome.superseded()) {
      buffer.done(pending.get(write), false);
      counts[1]++;
    }
    for (BulkOutcome.ItemFailure failure : outcome.failures()) {
      if (failure.retryable()) {
        counts[3]++;
        if (failure.storeRefuses() && refusal[0] == null) {
          refusal[0] = "HTTP " + failure.status() + " " + failure.reason();
        }
      } else {
        deadLetters.add(failure.write(), failure.status(), failure.reason());
        buffer.done(pending.get(failure.write()), false);
        counts[2]++;
      }
    }
  }
}
