package dev.flowpipe.schema.retention;

import dev.flowpipe.schema.index.ReadModelIndex;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One period of the read model (ADR 0009): a span of time of a fixed width, aligned on the epoch, whose instances live
 * in one index of their own, {@code <prefix>-p<yyyyMMddHHmmss>-read-model-v2}.
 */
public record Period(Instant start, Duration width) implements Comparable<Period> {

  private static final DateTimeFormatter NAME = DateTimeFormatter.ofPattern("yyyyMMddHHmmss").withZone(ZoneOffset.UTC);
  private static final Pattern INDEX = Pattern.compile("-p(\\d{14})" + Pattern.quote(ReadModelIndex.sharedIndexName("")));

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

  /** The start of the period whose index this is, if it is one of {@code prefix}. */
  public static Optional<Instant> startOfIndex(String prefix, String index) {
    if (index == null || !index.startsWith(prefix + "-p")) {
      return Optional.empty();
    }
    Matcher matcher = INDEX.matcher(index.substring(prefix.length()));
    return matcher.matches()
        ? Optional.of(Instant.from(NAME.parse(matcher.group(1))))
        : Optional.empty();
  }

  @Override
  public int compareTo(Period other) {
    return start.compareTo(other.start);
  }
}
