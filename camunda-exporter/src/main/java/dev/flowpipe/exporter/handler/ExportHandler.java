package dev.flowpipe.exporter.handler;

import dev.flowpipe.schema.store.DocumentWrite;
import io.camunda.zeebe.protocol.record.Record;
import java.util.List;

/**
 * Turns one kind of engine record into read-model writes. One handler per record type and document; the exporter and
 * the importer feed the same handlers, so there is one transformation.
 */
public interface ExportHandler {

  boolean handles(Record<?> record);

  /** The writes this record causes; each carries the record's position as its idempotence guard. */
  List<DocumentWrite> writes(Record<?> record);
}
