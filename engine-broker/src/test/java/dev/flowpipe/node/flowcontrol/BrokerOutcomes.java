package dev.flowpipe.node.flowcontrol;

import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The broker's own count of flow-control outcomes ({@code zeebe_flow_control_outcome_total}, kept in the Prometheus
 * client's process-wide registry) as "context/outcome" -> count, summed over partitions. The counters live as long as
 * the JVM, so a test compares two snapshots.
 */
record BrokerOutcomes(Map<String, Double> counts) {

  /** The outcome the write rate limit gives a refused command. */
  static final String WRITE_LIMIT = "writeRateLimitExhausted";
  /** The outcome the request limiter (command API backpressure) gives a refused command. */
  static final String REQUEST_LIMIT = "requestLimitExhausted";

  static BrokerOutcomes now() {
    Map<String, Double> counts = new TreeMap<>();
    for (var family : Collections.list(CollectorRegistry.defaultRegistry.metricFamilySamples())) {
      for (Collector.MetricFamilySamples.Sample sample : family.samples) {
        if (sample.name.equals("zeebe_flow_control_outcome_total")) {
          counts.merge(label(sample, "context") + "/" + label(sample, "outcome"), sample.value, Double::sum);
        }
      }
    }
    return new BrokerOutcomes(counts);
  }

  /** What was counted since {@code before}, outcomes that did not change left out. */
  BrokerOutcomes since(BrokerOutcomes before) {
    Map<String, Double> delta = new TreeMap<>();
    counts.forEach((key, value) -> {
      double change = value - before.counts.getOrDefault(key, 0.0);
      if (change != 0) {
        delta.put(key, change);
      }
    });
    return new BrokerOutcomes(delta);
  }

  /** Commands refused with this outcome, whatever their context. */
  long refused(String outcome) {
    return Math.round(counts.entrySet().stream().filter(e -> e.getKey().endsWith("/" + outcome))
        .mapToDouble(Map.Entry::getValue).sum());
  }

  private static String label(Collector.MetricFamilySamples.Sample sample, String name) {
    int i = sample.labelNames.indexOf(name);
    return i < 0 ? "?" : sample.labelValues.get(i);
  }
}
