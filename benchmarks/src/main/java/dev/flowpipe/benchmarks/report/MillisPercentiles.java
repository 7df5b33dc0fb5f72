package dev.flowpipe.benchmarks.report;

import org.HdrHistogram.Histogram;

/** Percentiles of a set of durations in ms, as a report shows them; all -1 when nothing was measured. */
public record MillisPercentiles(long count, long p50, long p95, long p99, long max) {

  public static MillisPercentiles of(Histogram histogram) {
    if (histogram.getTotalCount() == 0) {
      return new MillisPercentiles(0, -1, -1, -1, -1);
    }
    return new MillisPercentiles(histogram.getTotalCount(), histogram.getValueAtPercentile(50),
        histogram.getValueAtPercentile(95), histogram.getValueAtPercentile(99), histogram.getMaxValue());
  }

  public static MillisPercentiles of(Iterable<Long> millis) {
    Histogram histogram = new Histogram(java.util.concurrent.TimeUnit.MINUTES.toMillis(10), 3);
    for (long value : millis) {
      histogram.recordValue(Math.max(0, Math.min(value, histogram.getHighestTrackableValue())));
    }
    return of(histogram);
  }

  /** "p50 / p95 / p99 ms" for a table cell. */
  public String summary() {
    return count == 0 ? "-" : p50 + " / " + p95 + " / " + p99 + " ms";
  }
}
