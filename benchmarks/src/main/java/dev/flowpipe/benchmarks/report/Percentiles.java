package dev.flowpipe.benchmarks.report;

import org.HdrHistogram.Histogram;

/** Count, p50, p90, p99 and max of a histogram, in its unit (milliseconds wherever a report says "Millis"). */
public record Percentiles(long count, long p50, long p90, long p99, long max) {

  public static Percentiles of(Histogram histogram) {
    return new Percentiles(histogram.getTotalCount(), histogram.getValueAtPercentile(50),
        histogram.getValueAtPercentile(90), histogram.getValueAtPercentile(99), histogram.getMaxValue());
  }
}
