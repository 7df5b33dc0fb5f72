package dev.flowpipe.benchmarks.report;

import dev.flowpipe.benchmarks.report.Section.Flag;
import java.util.Objects;

/**
 * What every scenario returns: one tree of {@link Section}s whose leaves are texts, flags and figures with units.
 * {@link ReportWriter} writes it as JSON (the file a scenario leaves under {@code benchmarks/results/}, and what the
 * HTML pages are drawn from) and as markdown.
 *
 * <p>Build one with {@link #describing} and fill {@link #body()}, or wrap a scenario's own typed record with
 * {@link #of(Object)}.
 */
public record Report(Section body) {

  /** The key of the one-line description every report opens with. */
  public static final String SCENARIO = "scenario";
  /** The key of the verdict a suite (crash, cluster-crash) reports; false makes {@code benchmarks/run} exit 1. */
  public static final String PASSED = "passed";

  public Report {
    Objects.requireNonNull(body, "body");
  }

  /** An empty report whose {@code scenario} line says what was measured and how. */
  public static Report describing(String scenario) {
    return new Report(new Section().text(SCENARIO, scenario));
  }

  /** A scenario's typed record (or a section or report already built) as its report. */
  public static Report of(Object typed) {
    return switch (typed) {
      case Report report -> report;
      case Section section -> new Report(section);
      default -> new Report(Section.of(typed));
    };
  }

  /** False only when the report says {@code passed: false}. */
  public boolean failed() {
    return body.get(PASSED) instanceof Flag flag && !flag.value();
  }
}
