package dev.flowpipe.webapp.live;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * How far the read model holds each partition's log: the exporter's export positions, one per partition. Written as an
 * event id ({@code 1:4096,2:512}), which the browser's {@code EventSource} sends back as {@code Last-Event-ID} when it
 * reconnects.
 *
 * @param byPartition partition id to export position
 */
record LogPositions(SortedMap<Integer, Long> byPartition) {

  static final LogPositions NONE = new LogPositions(new TreeMap<>());

  LogPositions {
    byPartition = new TreeMap<>(byPartition);
  }

  static LogPositions of(Map<Integer, Long> positions) {
    return new LogPositions(new TreeMap<>(positions));
  }

  /**
   * The positions an event id names; an id that is none of ours (empty, edited, of an older format) names nothing,
   * which makes the stream send the current positions at once: a client that cannot say where it was catches up.
   */
  static LogPositions parse(String eventId) {
    if (eventId == null || eventId.isBlank()) {
      return NONE;
    }
    SortedMap<Integer, Long> positions = new TreeMap<>();
    for (String part : eventId.split(",")) {
      String[] pair = part.split(":");
      try {
        if (pair.length != 2) {
          return NONE;
        }
        positions.put(Integer.valueOf(pair[0].trim()), Long.valueOf(pair[1].trim()));
      } catch (NumberFormatException e) {
        return NONE;
      }
    }
    return new LogPositions(positions);
  }

  /** Whether some partition is beyond where {@code earlier} had it (or was not in it). */
  boolean beyond(LogPositions earlier) {
    return byPartition.entrySet().stream()
        .anyMatch(e -> e.getValue() > earlier.byPartition.getOrDefault(e.getKey(), Long.MIN_VALUE));
  }

  /** The partitions that moved since {@code earlier}, with their new positions. */
  SortedMap<Integer, Long> movedSince(LogPositions earlier) {
    SortedMap<Integer, Long> moved = new TreeMap<>();
    byPartition.forEach((partition, position) -> {
      if (position > earlier.byPartition.getOrDefault(partition, Long.MIN_VALUE)) {
        moved.put(partition, position);
      }
    });
    return moved;
  }

  /** Each partition at the further of the two positions. */
  LogPositions max(LogPositions other) {
    SortedMap<Integer, Long> merged = new TreeMap<>(byPartition);
    other.byPartition.forEach((partition, position) -> merged.merge(partition, position, Math::max));
    return new LogPositions(merged);
  }

  String eventId() {
    return byPartition.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue()).collect(Collectors.joining(","));
  }
}
