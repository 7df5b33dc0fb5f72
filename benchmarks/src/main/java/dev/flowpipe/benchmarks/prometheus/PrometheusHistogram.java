package dev.flowpipe.benchmarks.prometheus;

import dev.flowpipe.testsupport.PrometheusSamples;
import java.util.Map;
import java.util.TreeMap;

/**
 * One histogram of a node's Prometheus text: the cumulative count of each bucket ({@code _bucket{le=...}}), summed
 * over the series whose line contains a label (e.g. {@code reason="delay"}; "" for all, so partitions add up), and its
 * quantiles interpolated within a bucket as Prometheus' {@code histogram_quantile} does. The counts are the meter's
 * since the node started.
 */
public record PrometheusHistogram(TreeMap<Double, Double> cumulative) {

  public static PrometheusHistogram parse(String prometheus, String metric, String label) {
    TreeMap<Double, Double> buckets = new TreeMap<>();
    for (PrometheusSamples.Sample bucket : PrometheusSamples.parse(prometheus).named(metric + "_bucket", label)) {
      String le = bucket.label("le");
      double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
      buckets.merge(bound, bucket.value(), Double::sum);
    }
    return new PrometheusHistogram(buckets);
  }

  public double count() {
    return cumulative.isEmpty() ? 0 : cumulative.lastEntry().getValue();
  }

  /** The q-quantile in the histogram's unit, or NaN without observations; at most the highest finite bound. */
  public double quantile(double q) {
    double total = count();
    if (total == 0) {
      return Double.NaN;
    }
    double rank = q * total;
    double lowerBound = 0;
    double below = 0;
    for (Map.Entry<Double, Double> bucket : cumulative.entrySet()) {
      if (bucket.getValue() >= rank) {
        if (bucket.getKey().isInfinite()) {
          return lowerBound;
        }
        double inBucket = bucket.getValue() - below;
        return inBucket == 0 ? bucket.getKey()
            : lowerBound + (bucket.getKey() - lowerBound) * (rank - below) / inBucket;
      }
      lowerBound = bucket.getKey();
      below = bucket.getValue();
    }
    return lowerBound;
  }
}
