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

  public static Map<String, Object> percentiles(Histogram histogram) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("count", histogram.getTotalCount());
    p.put("p50", histogram.getValueAtPercentile(50));
    p.put("p90", histogram.getValueAtPercentile(90));
    p.put("p99", histogram.getValueAtPercentile(99));
    p.put("max", histogram.getMaxValue());
    return p;
  }

  public static Map<String, Double> means(Map<String, List<Double>> results) {
    Map<String, Double> means = new LinkedHashMap<>();
    results.forEach((mode, values) ->
        means.put(mode, values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN)));
    return means;
  }
}
