package dev.flowpipe.writer;

import dev.flowpipe.writer.error.DeadLetters;
import dev.flowpipe.writer.handler.DocumentChange;
import dev.flowpipe.writer.handler.ExportHandler;
import io.camunda.zeebe.protocol.record.Record;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * The document changes of one record: those of every handler that handles it. A handler that throws must not stop
 * the partition (the broker would offer the same record again for ever): its changes are replaced by a dead letter
 * holding the record and the reason, and the other handlers' changes stand. The exporter and the importer both turn
 * records into documents through this one class.
 */
public final class RecordChanges {

  private final List<ExportHandler> handlers;
  private final String indexPrefix;
  private final int partitionId;
  private final InstantSource clock;
  private final Logger log;
  private final Runnable deadLetterCounter;

  public RecordChanges(List<ExportHandler> handlers, String indexPrefix, int partitionId, InstantSource clock, Logger log,
      Runnable deadLetterCounter) {
    this.handlers = List.copyOf(handlers);
    this.indexPrefix = indexPrefix;
    this.partitionId = partitionId;
    this.clock = clock;
    this.log = log;
    this.deadLetterCounter = deadLetterCounter;
  }

  /** The changes of this record, computed now (the broker reuses record objects). */
  public List<DocumentChange> of(Record<?> record) {
    List<DocumentChange> changes = new ArrayList<>(2);
    for (ExportHandler handler : handlers) {
      try {
        if (handler.handles(record)) {
          changes.addAll(handler.changes(record));
        }
      } catch (RuntimeException e) {
        String reason = handler.getClass().getSimpleName() + " failed on " + record.getValueType() + " "
            + record.getIntent() + ": " + e;
        log.error("record at position {} of partition {} goes to the dead letters: {}",
            record.getPosition(), partitionId, reason, e);
        changes.add(DeadLetters.forRecord(
            indexPrefix, partitionId, record.getPosition(), json(record), reason, DeadLetters.MAX_COPY_CHARS, clock));
        deadLetterCounter.run();
      }
    }
    return changes;
  }

  private static String json(Record<?> record) {
    try {
      return record.toJson();
    } catch (RuntimeException e) {
      return String.valueOf(record); // a record that cannot be written as JSON: its text form is all there is
    }
  }
}
