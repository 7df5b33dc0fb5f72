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

  /** The first process-instance key of a period on a partition. */
  public record Boundary(int partition, Period period, long firstKey) {}

  private final Duration width;
  private final Map<Integer, NavigableMap<Long, Period>> byPartition = new HashMap<>();
  private final Map<Instant, State> states = new HashMap<>();

  public BucketTable(Duration width) {
    this.width = Objects.requireNonNull(width);
  }

  public Duration width() {
    return width;
  }

  /**
   * Opens the period of {@code recordTime} on the partition if it is later than the partition's newest one, at this
   * (process-instance creation) key; returns the new boundary, to be made durable before any document routed to it.
   */
  public synchronized Optional<Boundary> open(int partition, long instanceKey, Instant recordTime) {
    Period period = Period.of(recordTime, width);
    NavigableMap<Long, Period> boundaries = byPartition.computeIfAbsent(partition, p -> new TreeMap<>());
    Map.Entry<Long, Period> newest = boundaries.lastEntry();
    if (newest != null && (newest.getValue().compareTo(period) >= 0 || newest.getKey() >= instanceKey)) {
      return Optional.empty();
    }
    boundaries.put(instanceKey, period);
    return Optional.of(new Boundary(partition, period, instanceKey));
  }

  /** Adds a boundary read back from the store. */
  public synchronized void add(Boundary boundary) {
    byPartition.computeIfAbsent(boundary.partition(), p -> new TreeMap<>())
        .put(boundary.firstKey(), boundary.period());
  }

  /** The period of the instance with this key; empty for a key before the partition's first boundary (the base). */
  public synchronized Optional<Period> periodOf(int partition, long instanceKey) {
    NavigableMap<Long, Period> boundaries = byPartition.get(partition);
    if (boundaries == null) {
      return Optional.empty();
    }
    Map.Entry<Long, Period> floor = boundaries.floorEntry(instanceKey);
    return floor == null ? Optional.empty() : Optional.of(floor.getValue());
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
    byPartition.values().forEach(b -> b.values().forEach(p -> periods.put(p.start(), p)));
    return new ArrayList<>(periods.values());
  }

  public synchronized List<Boundary> boundaries() {
    List<Boundary> all = new ArrayList<>();
    byPartition.forEach((partition, b) -> b.forEach((key, period) -> all.add(new Boundary(partition, period, key))));
    return all;
  }
}
