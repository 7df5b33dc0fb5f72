package dev.flowpipe.benchmarks.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Rounding, percentiles and means as the reports give them.
 */
public final class Figures {

  private Figures() {}

  public static double round3(double value) {
    return Math.round(value * 1000) / 1000.0;
  }

  /** Count, p50, p90, p99 and max of a histogram of milliseconds. */
  public static Section percentiles(Histogram histogram) {
    return new Section().figure("count", histogram.getTotalCount())
        .figure("p50", histogram.getValueAtPercentile(50), Unit.MILLIS)
        .figure("p90", histogram.getValueAtPercentile(90), Unit.MILLIS)
        .figure("p99", histogram.getValueAtPercentile(99), Unit.MILLIS)
        .figure("max", histogram.getMaxValue(), Unit.MILLIS);
  }

  public static Map<String, Double> means(Map<String, List<Double>> results) {
    Map<String, Double> means = new LinkedHashMap<>();
    results.forEach((mode, values) ->
        means.put(mode, values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN)));
    return means;
  }
}
