package dev.flowpipe.exporter.error;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;

/**
 * Documents the store refuses for good (a mapping conflict, a document too large) are written with the reason to the
 * dead-letter index, logged and counted, and the exporter goes on. The copy is cut to {@code maxCopyChars} so that a
 * too-large document does not fail a second time.
 */
public final class DeadLetters {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final SearchStore store;
  private final String index;
  private final int partitionId;
  private final int maxCopyChars;
  private final Logger log;
  private final Runnable counter;

  public DeadLetters(
      SearchStore store, String indexPrefix, int partitionId, int maxCopyChars, Logger log, Runnable counter) {
    this.store = store;
    this.index = ReadModelIndex.DEAD_LETTER.indexName(indexPrefix);
    this.partitionId = partitionId;
    this.maxCopyChars = maxCopyChars;
    this.log = log;
    this.counter = counter;
  }

  /** Stores the refused write; throws (so the flush is retried) only if the dead-letter write itself fails. */
  public void add(DocumentWrite write, int status, String reason) {
    String copy;
    try {
      copy = JSON.writeValueAsString(write.document());
    } catch (JsonProcessingException e) {
      copy = String.valueOf(write.document());
    }
    Map<String, Object> letter = new LinkedHashMap<>();
    letter.put("targetIndex", write.index());
    letter.put("documentId", write.id());
    letter.put("position", write.position());
    letter.put("partitionId", partitionId);
    letter.put("status", status);
    letter.put("reason", reason);
    letter.put("document", copy.length() > maxCopyChars ? copy.substring(0, maxCopyChars) : copy);
    letter.put("documentBytes", (long) copy.length());
    letter.put("time", Instant.now().toString());
    store.append(index, letter);
    counter.run();
    log.error("store refused {}/{} at position {} for good (HTTP {}: {}); kept in {}",
        write.index(), write.id(), write.position(), status, reason, index);
  }
}
