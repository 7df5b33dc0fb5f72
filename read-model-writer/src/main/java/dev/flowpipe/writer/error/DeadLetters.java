package dev.flowpipe.writer.error;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.writer.handler.DocumentChange;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;

/**
 * What could not become read-model documents goes, with the reason, to the dead-letter index; it is logged and
 * counted, and exporting goes on. Two kinds:
 *
 * <ul>
 *   <li>a document the store refuses for good (a mapping conflict, a document too large): {@link #add}, with the
 *       store's HTTP status;
 *   <li>a record a handler could not handle (it threw): {@link #forRecord}, status 0, written in the bulk like any
 *       document, so it is durable before the record's position is acknowledged;
 *   <li>a raw record the importer could not parse: {@link #forUnreadableRecord}, status -1, in the bulk that moves the
 *       importer's cursor past it, with the raw index and id in {@code targetIndex} and {@code documentId}.
 * </ul>
 *
 * Ids are deterministic (partition, position and what failed), so a retried bulk or a replay writes a letter again
 * over itself, never a second copy. Copies are cut to {@code maxCopyChars} so that a too-large document does not fail
 * a second time.
 */
public final class DeadLetters {

  /** Dead letters keep this much of the refused document or the record, in characters. */
  public static final int MAX_COPY_CHARS = 32 * 1024;

  /** The status of a record that no document could be made of (no HTTP status applies). */
  public static final int HANDLER_FAILED = 0;

  /** The status of a stored raw record that is no record at all (the importer could not parse it). */
  public static final int RECORD_UNREADABLE = -1;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final SearchStore store;
  private final String index;
  private final int partitionId;
  private final int maxCopyChars;
  private final Logger log;
  private final Runnable counter;
  private final InstantSource clock;

  public DeadLetters(SearchStore store, String indexPrefix, int partitionId, int maxCopyChars, Logger log,
      Runnable counter, InstantSource clock) {
    this.store = store;
    this.index = ReadModelIndex.DEAD_LETTER.indexName(indexPrefix);
    this.partitionId = partitionId;
    this.maxCopyChars = maxCopyChars;
    this.log = log;
    this.counter = counter;
    this.clock = clock;
  }

  /** Stores the refused write; throws (so the flush is retried) only if the dead-letter write itself fails. */
  public void add(DocumentWrite write, int status, String reason) {
    String copy;
    try {
      copy = JSON.writeValueAsString(write.document());
    } catch (JsonProcessingException e) {
      copy = String.valueOf(write.document());
    }
    Map<String, Object> letter = letter(partitionId, write.position(), status, reason, copy, maxCopyChars, clock);
    letter.put("targetIndex", write.index());
    letter.put("documentId", write.id());
    store.put(index, partitionId + "-" + write.position() + "-" + write.index() + "-" + write.id(), letter);
    counter.run();
    log.error("store refused {}/{} at position {} for good (HTTP {}: {}); kept in {}",
        write.index(), write.id(), write.position(), status, reason, index);
  }

  /**
   * The dead letter of a record a handler threw on: the record's JSON (taken now, while the broker's record object
   * still holds it) and the reason, as a change of the dead-letter index under the record's partition and position.
   */
  public static DocumentChange forRecord(String indexPrefix, int partitionId, long position, String recordJson,
      String reason, int maxCopyChars, InstantSource clock) {
    var change = DocumentChange.create(
        ReadModelIndex.DEAD_LETTER.indexName(indexPrefix), "record-" + partitionId + "-" + position, position);
    letter(partitionId, position, HANDLER_FAILED, reason, recordJson, maxCopyChars, clock).forEach(change::put);
    return change.build();
  }

  /**
   * The dead letter of a raw record that is no record (the importer could not parse it): its stored text, where it is
   * stored ({@code targetIndex} and {@code documentId} name the raw index and id) and the parser's reason. Its id
   * names that raw document, so reading it again after a restart writes the same letter again, never a second one.
   */
  public static DocumentChange forUnreadableRecord(String indexPrefix, int partitionId, long position,
      String rawIndex, String rawId, String rawText, String reason, int maxCopyChars, InstantSource clock) {
    var change = DocumentChange.create(ReadModelIndex.DEAD_LETTER.indexName(indexPrefix),
        "raw-" + rawIndex + "-" + rawId, Math.max(0, position));
    letter(partitionId, position, RECORD_UNREADABLE, reason, rawText, maxCopyChars, clock).forEach(change::put);
    change.put("targetIndex", rawIndex);
    change.put("documentId", rawId);
    return change.build();
  }

  private static Map<String, Object> letter(int partitionId, long position, int status, String reason, String copy,
      int maxCopyChars, InstantSource clock) {
    Map<String, Object> letter = new LinkedHashMap<>();
    letter.put("position", position);
    letter.put("partitionId", partitionId);
    letter.put("status", status);
    letter.put("reason", reason);
    letter.put("document", copy.length() > maxCopyChars ? copy.substring(0, maxCopyChars) : copy);
    letter.put("documentBytes", (long) copy.length());
    letter.put("time", clock.instant().toString());
    return letter;
  }
}
