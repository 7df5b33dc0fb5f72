package dev.flowpipe.importer.cursor;

import dev.flowpipe.importer.source.RawRecord;
import dev.flowpipe.importer.source.Sequences;
import io.camunda.zeebe.protocol.record.ValueType;
import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;

/**
 * How far a partition is imported: per value type the sequence of the last record taken, and the position and engine
 * time of the newest record. Immutable: {@link #after} gives the next one.
 */
public record PartitionCursor(int partitionId, Map<ValueType, Long> sequences, long lastPosition, long lastTimestamp) {

  public PartitionCursor {
    sequences = Map.copyOf(sequences);
  }

  /** Before any record of these value types. */
  public static PartitionCursor start(int partitionId, Collection<ValueType> valueTypes) {
    Map<ValueType, Long> sequences = new EnumMap<>(ValueType.class);
    valueTypes.forEach(type -> sequences.put(type, Sequences.start(partitionId)));
    return new PartitionCursor(partitionId, sequences, -1, -1);
  }

  /** The cursor once {@code raw} is taken too. */
  public PartitionCursor after(RawRecord raw) {
    Map<ValueType, Long> next = new EnumMap<>(ValueType.class);
    next.putAll(sequences);
    next.merge(raw.valueType(), raw.sequence(), Math::max);
    return new PartitionCursor(partitionId, next, Math.max(lastPosition, raw.position()),
        Math.max(lastTimestamp, raw.timestamp()));
  }

  public long sequence(ValueType valueType) {
    return sequences.getOrDefault(valueType, Sequences.start(partitionId));
  }

  /** Whether no record has been taken. */
  public boolean isStart() {
    return lastPosition < 0;
  }
}
