package dev.flowpipe.writer.handler;

import java.time.Instant;

/** Read-model dates: ISO-8601 instants, as the index mappings expect. */
final class Dates {

  private Dates() {}

  static String of(long epochMillis) {
    return Instant.ofEpochMilli(epochMillis).toString();
  }

  /** Keys the engine sets to -1 when absent become null (no value) in documents. */
  static Long key(long key) {
    return key > 0 ? key : null;
  }
}
