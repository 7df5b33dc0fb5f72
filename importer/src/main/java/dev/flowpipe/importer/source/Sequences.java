package dev.flowpipe.importer.source;

/**
 * The stock exporter's record sequence: {@code (partitionId << 51) + counter}, with one counter per partition and value
 * type that it raises by one for every record it exports and restores from its exporter metadata after a restart, so
 * a replayed record gets the sequence it had. Counters start at 1; counter 0 stands for "before the first record".
 */
public final class Sequences {

  private static final int PARTITION_SHIFT = 51;
  private static final long COUNTER_MASK = (1L << PARTITION_SHIFT) - 1;

  private Sequences() {}

  /** The sequence of {@code counter} on this partition. */
  public static long of(int partitionId, long counter) {
    return ((long) partitionId << PARTITION_SHIFT) + counter;
  }

  /** The sequence before every record of the partition (counter 0). */
  public static long start(int partitionId) {
    return of(partitionId, 0);
  }

  public static long counter(long sequence) {
    return sequence & COUNTER_MASK;
  }

  public static int partition(long sequence) {
    return (int) (sequence >>> PARTITION_SHIFT);
  }
}
