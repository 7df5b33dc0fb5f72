package dev.flowpipe.benchmarks.prometheus;

import dev.flowpipe.benchmarks.report.Quantiles;
import dev.flowpipe.testsupport.PrometheusSamples;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Figures read from a node's Prometheus text ({@link PrometheusSamples}, the one reader of that format): a timer's
 * quantiles, the exporter's flush statistics.
 */
public final class PrometheusText {

  private PrometheusText() {}

  /** The p50 and p99 of the exporter's export-latency timer, from the node's Prometheus text. */
  public static Quantiles exporterLatency(String prometheus) {
    return quantiles(prometheus, "flowpipe_exporter_export_latency_seconds", "");
  }

  /**
   * The p50 and p99 of one timer in the node's Prometheus text, in ms, interpolated in its histogram's buckets (see
   * {@link PrometheusHistogram}: over the node's life so far), and its "max" (the largest value of the timer's last
   * few minutes: Micrometer's decaying maximum); only series whose lines contain {@code label} (e.g.
   * {@code reason="delay"}; "" for all).
   */
  public static Quantiles quantiles(String prometheus, String metric, String label) {
    PrometheusHistogram histogram = PrometheusHistogram.parse(prometheus, metric, label);
    boolean observed = histogram.count() > 0;
    OptionalLong max = PrometheusSamples.parse(prometheus).named(metric + "_max", label).stream()
        .mapToLong(sample -> Math.round(Math.max(0, sample.value()) * 1000)).max();
    return new Quantiles(observed ? Math.round(histogram.quantile(0.5) * 1000) : null,
        observed ? Math.round(histogram.quantile(0.99) * 1000) : null, max.isPresent() ? max.getAsLong() : null);
  }


  /** Bulks by reason (count, mean documents, mean seconds) from the exporter's Prometheus text; empty without one. */
  public static Map<String, String> flushStatistics(String prometheus) {
    Map<String, Double> values = new LinkedHashMap<>();
    PrometheusSamples samples = PrometheusSamples.parse(prometheus);
    for (String name : List.of("flush_duration_seconds_count", "flush_duration_seconds_sum", "bulk_size_documents_count",
        "bulk_size_documents_sum")) {
      for (PrometheusSamples.Sample sample : samples.named("flowpipe_exporter_" + name)) {
        String reason = sample.label("reason") == null ? "all" : sample.label("reason");
        values.merge(name + "/" + reason, sample.value(), Double::sum);
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
