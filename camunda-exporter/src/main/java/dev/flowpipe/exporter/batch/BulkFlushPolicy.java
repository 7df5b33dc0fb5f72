package dev.flowpipe.exporter.batch;

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

  public BulkFlushPolicy {
    if (delay == null || delay.isNegative() || delay.isZero()) {
      throw new IllegalArgumentException("bulk delay must be positive, was " + delay);
    }
    if (size < 1) {
      throw new IllegalArgumentException("bulk size must be >= 1, was " + size);
    }
    if (memoryLimitBytes < 1024) {
      throw new IllegalArgumentException("bulk memory limit must be >= 1KB, was " + memoryLimitBytes + " bytes");
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
