package dev.flowpipe.importer.source;

import io.camunda.zeebe.protocol.record.Record;
import java.util.Objects;

/**
 * One raw record as read from the stock exporter's index, with the sequence it was stored under.
 *
 * @param sequence the stock exporter's sequence (see {@link Sequences})
 * @param record the record, rebuilt from its JSON
 */
public record RawRecord(long sequence, Record<?> record) {

  public RawRecord {
    Objects.requireNonNull(record, "record");
  }

  public long counter() {
    return Sequences.counter(sequence);
  }

  public long position() {
    return record.getPosition();
  }
}
