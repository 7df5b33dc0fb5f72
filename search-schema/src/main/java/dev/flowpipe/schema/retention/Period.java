package dev.flowpipe.schema.retention;

import dev.flowpipe.schema.index.ReadModelIndex;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Objects;

/**
 * One period of the read model (ADR 0011): a span of time of a fixed width, aligned on the epoch, whose instances live
 * in one index of their own, {@code <prefix>-p<yyyyMMddHHmmss>-read-model-v2}.
 */
public record Period(Instant start, Duration width) implements Comparable<Period> {

  private static final DateTimeFormatter NAME = DateTimeFormatter.ofPattern("yyyyMMddHHmmss").withZone(ZoneOffset.UTC);

  public Period {
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(width, "width");
  }

  /** The period of that width holding {@code time}. */
  public static Period of(Instant time, Duration width) {
    long widthSeconds = width.getSeconds();
    long start = Math.floorDiv(time.getEpochSecond(), widthSeconds) * widthSeconds;
    return new Period(Instant.ofEpochSecond(start), width);
  }

  /** The first instant after the period. */
  public Instant end() {
    return start.plus(width);
  }

  /** e.g. {@code p20261127134500}: unique per period start, sorted as the periods are. */
  public String label() {
    return "p" + NAME.format(start);
  }

  /** The physical index of the period. */
  public String indexName(String prefix) {
    return ReadModelIndex.sharedIndexName(prefix + "-" + label());
  }

  /**
   * The entity's name in this period only ({@code <prefix>-p...-variable-v2}): the alias the exporter writes and reads
   * bases through, onto this period's index alone.
   */
  public String entityName(String prefix, ReadModelIndex entity) {
    return entity.indexName(prefix + "-" + label());
  }

  @Override
  public int compareTo(Period other) {
    return start.compareTo(other.start);
  }
}
