package dev.flowpipe.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Figures read from a node's Prometheus text: export latency quantiles, flush statistics.
 */
final class PrometheusText {

  private PrometheusText() {}

  /** The p50 and p99 of the exporter's export-latency timer, from the node's Prometheus text. */
  static Map<String, Object> exporterLatency(String prometheus) {
    return quantilesMillis(prometheus, "flowpipe_exporter_export_latency_seconds", "");
  }

  /**
   * The p50 and p99 of one timer in the node's Prometheus text, in ms, interpolated in its histogram's buckets (see
   * {@link PrometheusHistogram}: over the node's life so far), and its "max" (the largest value of the timer's last
   * few minutes: Micrometer's decaying maximum); only series whose lines contain {@code label} (e.g.
   * {@code reason="delay"}; "" for all).
   */
  static Map<String, Object> quantilesMillis(String prometheus, String metric, String label) {
    Map<String, Object> quantiles = new LinkedHashMap<>();
    PrometheusHistogram histogram = PrometheusHistogram.parse(prometheus, metric, label);
    if (histogram.count() > 0) {
      quantiles.put("p50", Math.round(histogram.quantile(0.5) * 1000));
      quantiles.put("p99", Math.round(histogram.quantile(0.99) * 1000));
    }
    Long max = null;
    for (String line : prometheus.split("\n")) {
      if (line.contains(label) && line.startsWith(metric + "_max{")) {
        max = Math.max(max == null ? 0 : max, millis(line));
      }
    }
    if (max != null) {
      quantiles.put("max", max);
    }
    return quantiles;
  }

  /** The value of one Prometheus sample line, in seconds, as ms. */
  static long millis(String line) {
    return Math.round(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)) * 1000);
  }

  /** Bulks by reason (count, mean documents, mean seconds) from the exporter's Prometheus text; empty without one. */
  static Map<String, String> flushStatistics(String prometheus) {
    Map<String, Double> values = new LinkedHashMap<>();
    for (String line : prometheus.split("\n")) {
      if (line.startsWith("flowpipe_exporter_flush_duration_seconds_count{")
          || line.startsWith("flowpipe_exporter_flush_duration_seconds_sum{")
          || line.startsWith("flowpipe_exporter_bulk_size_documents_count{")
          || line.startsWith("flowpipe_exporter_bulk_size_documents_sum{")) {
        String name = line.substring("flowpipe_exporter_".length(), line.indexOf('{'));
        String reason = line.contains("reason=\"") ? line.replaceAll(".*reason=\"([^\"]+)\".*", "$1") : "all";
        values.merge(name + "/" + reason, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), Double::sum);
      }
    }
    Map<String, String> statistics = new LinkedHashMap<>();
    values.forEach((key, count) -> {
      if (key.startsWith("flush_duration_seconds_count/")) {
        String reason = key.substring(key.indexOf('/') + 1);
        double sum = values.getOrDefault("flush_duration_seconds_sum/" + reason, 0.0);
        statistics.put(reason, String.format(java.util.Locale.ROOT, "%.0f bulks, %.1f ms", count,
            count == 0 ? 0 : 1000 * sum / count));
      }
    });
    double bulks = values.getOrDefault("bulk_size_documents_count/all", 0.0);
    if (bulks > 0) {
      statistics.put("documentsPerBulk",
          String.format(java.util.Locale.ROOT, "%.1f", values.get("bulk_size_documents_sum/all") / bulks));
    }
    return statistics;
  }
}
