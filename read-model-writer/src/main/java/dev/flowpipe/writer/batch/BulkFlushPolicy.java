package dev.flowpipe.writer.batch;

import dev.flowpipe.settings.SettingRules;
import java.time.Duration;
import java.util.Optional;

/**
 * When the buffer is written: when it holds {@code size} documents, when its estimated memory reaches
 * {@code memoryLimitBytes}, or when its oldest change has waited {@code delay}.
 */
public record BulkFlushPolicy(Duration delay, int size, long memoryLimitBytes) {

  /** Why a flush is due. */
  public enum Reason {
    SIZE,
    MEMORY,
    DELAY,
    CLOSE
  }

  /**
   * The names of the three settings in one configuration, for messages: the exporter's arguments
   * ({@link #ARGUMENTS}), the importer's properties, the node's YAML.
   */
  public record Keys(String delay, String size, String memoryLimit) {
    /** The exporter's argument keys, which the importer's keys follow under their prefix. */
    public static final Keys ARGUMENTS = new Keys("bulk-delay", "bulk-size", "bulk-memory-limit");

    /** The same keys under {@code prefix} ({@code flowpipe.importer.}). */
    public Keys under(String prefix) {
      return new Keys(prefix + delay, prefix + size, prefix + memoryLimit);
    }
  }

  /** Smallest memory limit: below it the limit would be reached by a single document. */
  public static final long MIN_MEMORY_LIMIT_BYTES = 1024;

  public BulkFlushPolicy {
    check(Keys.ARGUMENTS, delay, size, memoryLimitBytes);
  }

  /**
   * The policy, or a failure naming the setting by its key in {@code keys} and its value: the one place the bulk
   * rules are written.
   */
  public static BulkFlushPolicy checked(Keys keys, Duration delay, int size, long memoryLimitBytes) {
    check(keys, delay, size, memoryLimitBytes);
    return new BulkFlushPolicy(delay, size, memoryLimitBytes);
  }

  private static void check(Keys keys, Duration delay, int size, long memoryLimitBytes) {
    SettingRules.positive(keys.delay(), delay);
    if (size < 1) {
      throw new IllegalArgumentException(keys.size() + " must be >= 1, was " + size);
    }
    if (memoryLimitBytes < MIN_MEMORY_LIMIT_BYTES) {
      throw new IllegalArgumentException(
          keys.memoryLimit() + " must be at least 1KB, was " + memoryLimitBytes + " bytes");
    }
  }

  public Optional<Reason> due(DocumentBuffer buffer, long nowNanos) {
    if (buffer.isEmpty()) {
      return Optional.empty();
    }
    if (buffer.size() >= size) {
      return Optional.of(Reason.SIZE);
    }
    if (buffer.estimatedBytes() >= memoryLimitBytes) {
      return Optional.of(Reason.MEMORY);
    }
    if (buffer.ageNanos(nowNanos) >= delay.toNanos()) {
      return Optional.of(Reason.DELAY);
    }
    return Optional.empty();
  }

  /** Nanos until the oldest change has waited the delay (0 if already due, the delay when empty). */
  public long nanosUntilDelay(DocumentBuffer buffer, long nowNanos) {
    return buffer.isEmpty() ? delay.toNanos() : Math.max(0, delay.toNanos() - buffer.ageNanos(nowNanos));
  }

  /** The buffer is full: past twice the size or memory limit, export must wait for a flush. */
  public boolean full(DocumentBuffer buffer) {
    return buffer.size() >= 2L * size || buffer.estimatedBytes() >= 2 * memoryLimitBytes;
  }
}
