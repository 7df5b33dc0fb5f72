package dev.flowpipe.importer.source;

import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.ValueType;
import java.util.Objects;

/**
 * One raw record as read from the stock exporter's index, with the sequence it was stored under: either rebuilt from
 * its JSON ({@code record}), or a document that could not be ({@code unreadable}), which keeps its place in its value
 * type's sequence so that the import steps over it into the dead letters instead of waiting for it for ever.
 *
 * @param sequence the stock exporter's sequence (see {@link Sequences})
 * @param valueType the value type of the index it was read from
 * @param position its log position, -1 where even that could not be read
 * @param timestamp its engine time in epoch millis, -1 where that could not be read
 * @param record the record, rebuilt from its JSON; null where it is unreadable
 * @param unreadable why it could not be rebuilt, with its raw text; null where it was
 */
public record RawRecord(long sequence, ValueType valueType, long position, long timestamp, Record<?> record,
    Unreadable unreadable) {

  public RawRecord {
    if ((record == null) == (unreadable == null)) {
      throw new IllegalArgumentException("a raw record is either rebuilt or unreadable");
    }
  }

  public RawRecord(long sequence, Record<?> record) {
    this(sequence, Objects.requireNonNull(record, "record").getValueType(), record.getPosition(),
        record.getTimestamp(), record, null);
  }

  /**
   * A stored document that is no record.
   *
   * @param index the index it is stored in
   * @param id its id there
   * @param text its stored JSON
   * @param reason why it could not be rebuilt (the parser's message)
   */
  public record Unreadable(String index, String id, String text, String reason) {}

  public boolean readable() {
    return record != null;
  }

  public long counter() {
    return Sequences.counter(sequence);
  }
}
