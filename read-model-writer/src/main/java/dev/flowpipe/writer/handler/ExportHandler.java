package dev.flowpipe.writer.handler;

import io.camunda.zeebe.protocol.record.Record;
import java.util.List;

/**
 * Turns one kind of engine record into changes of read-model documents. One handler per record kind; the exporter
 * and the importer feed the same handlers, so there is one transformation.
 */
public interface ExportHandler {

  boolean handles(Record<?> record);

  /** The document changes this record causes, each carrying the record's position. */
  List<DocumentChange> changes(Record<?> record);
}
