package dev.flowpipe.schema.retention;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which period each process instance belongs to, by its key (ADR 0011): per partition, the first process-instance key
 * of each period. Keys grow monotonically per partition, so a floor lookup routes every document of an instance to the
 * same period on any replay, with no per-instance state. Also holds which periods are being or have been deleted.
 *
 * <p>Safe for use from several threads (the exporter's actor routes, its bulk thread persists).
 */
public final class BucketTable {

  /** Where a period is in its life. */
  public enum State { LIVE, DELETING, DELETED }

  /**
   * The first process-instance key of a period on a partition, and the log position of the record that created it
   * ({@link #UNKNOWN_POSITION} for a boundary written before positions were kept). Every instance of the partition's
   * previous period was created before that position: once the partition has exported past it, the previous period
   * holds every instance it ever will.
   */
  public record Boundary(int partition, Period period, long firstKey, long position) {}

  /** The position of a boundary written before boundaries kept theirs: taken as exported. */
  public static final long UNKNOWN_POSITION = -1;

  private final Duration width;
  private final Map<Integer, NavigableMap<Long, Boundary>> byPartition = new HashMap<>();
  private final Map<Instant, State> states = new HashMap<>();

  public BucketTable(Duration width) {
    this.width = Objects.requireNonNull(width);
  }

  public Duration width() {
    return width;
  }

  /**
   * Opens the period of {@code recordTime} on the partition if it is later than the partition's newest one, at this
   * (process-instance creation) key and the creation record's position; returns the new boundary, to be made durable
   * before any document routed to it.
   */
  public synchronized Optional<Boundary> open(int partition, long instanceKey, Instant recordTime, long position) {
    Period period = Period.of(recordTime, width);
    NavigableMap<Long, Boundary> boundaries = byPartition.computeIfAbsent(partition, p -> new TreeMap<>());
    Map.Entry<Long, Boundary> newest = boundaries.lastEntry();
    if (newest != null && (newest.getValue().period().compareTo(period) >= 0 || newest.getKey() >= instanceKey)) {
      return Optional.empty();
    }
    Boundary boundary = new Boundary(partition, period, instanceKey, position);
    boundaries.put(instanceKey, boundary);
    return Optional.of(boundary);
  }

  /** Adds a boundary read back from the store. */
  public synchronized void add(Boundary boundary) {
    byPartition.computeIfAbsent(boundary.partition(), p -> new TreeMap<>()).put(boundary.firstKey(), boundary);
  }

  /** The period of the instance with this key; empty for a key before the partition's first boundary (the base). */
  public synchronized Optional<Period> periodOf(int partition, long instanceKey) {
    NavigableMap<Long, Boundary> boundaries = byPartition.get(partition);
    if (boundaries == null) {
      return Optional.empty();
    }
    Map.Entry<Long, Boundary> floor = boundaries.floorEntry(instanceKey);
    return floor == null ? Optional.empty() : Optional.of(floor.getValue().period());
  }

  /**
   * Per partition that opened this period, the boundary that closed it there (the partition's next one), or empty
   * while the period is still the partition's newest: instances may still be created into it.
   */
  public synchronized Map<Integer, Optional<Boundary>> closingBoundaries(Period period) {
    Map<Integer, Optional<Boundary>> closing = new HashMap<>();
    byPartition.forEach((partition, boundaries) -> boundaries.values().stream()
        .filter(boundary -> boundary.period().equals(period)).findFirst()
        .ifPresent(opening -> closing.put(partition,
            Optional.ofNullable(boundaries.higherEntry(opening.firstKey())).map(Map.Entry::getValue))));
    return closing;
  }

  public synchronized State state(Period period) {
    return states.getOrDefault(period.start(), State.LIVE);
  }

  public synchronized void mark(Period period, State state) {
    states.put(period.start(), state);
  }

  /** Every period some partition opened, oldest first. */
  public synchronized List<Period> periods() {
    TreeMap<Instant, Period> periods = new TreeMap<>();
    byPartition.values().forEach(b -> b.values().forEach(boundary -> periods.put(boundary.period().start(),
        boundary.period())));
    return new ArrayList<>(periods.values());
  }

  public synchronized List<Boundary> boundaries() {
    List<Boundary> all = new ArrayList<>();
    byPartition.values().forEach(b -> all.addAll(b.values()));
    return all;
  }
}
