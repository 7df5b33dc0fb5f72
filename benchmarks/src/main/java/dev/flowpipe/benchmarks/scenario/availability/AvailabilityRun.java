package dev.flowpipe.benchmarks.scenario.availability;

import dev.flowpipe.benchmarks.report.Percentiles;
import dev.flowpipe.benchmarks.report.Quantiles;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.benchmarks.prometheus.PrometheusText;
import dev.flowpipe.benchmarks.load.Availability;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import io.camunda.zeebe.client.ZeebeClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The {@code availability} scenario: data availability (engine completion to visible in the read model) per bulk
 * delay, store niceness and node setting variant.
 */
public final class AvailabilityRun {

  private AvailabilityRun() {}

  /** The bulk delays an availability run measures, comma-separated, each checked ("100ms", "1s", "PT0.25S"). */
  public static List<String> availabilityDelays(String value) {
    List<String> delays = List.of(value.split(","));
    for (String delay : delays) {
      try {
        org.springframework.boot.convert.DurationStyle.detectAndParse(delay);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("availability: bulk delay '" + delay + "' is not a duration like 100ms, 1s"
            + " or PT0.25S", e);
      }
    }
    return delays;
  }

  /**
   * One node setting with the values to run availability with, as {@code key=value1|value2} (e.g.
   * {@code flowpipe.exporter.index-refresh-interval=100ms|1s}): one {@code key=value} per value. The node checks
   * the values when it starts.
   */
  public static List<String> nodeSettingVariants(String value) {
    int equals = value.indexOf('=');
    if (equals <= 0 || !value.startsWith("flowpipe.") || equals == value.length() - 1) {
      throw new IllegalArgumentException("availability: node setting variants must look like "
          + "flowpipe.some.key=value1|value2, was '" + value + "'");
    }
    String key = value.substring(0, equals);
    List<String> variants = new ArrayList<>();
    for (String one : value.substring(equals + 1).split("\\|")) {
      if (one.isBlank()) {
        throw new IllegalArgumentException("availability: an empty value in '" + value + "'");
      }
      variants.add(key + "=" + one);
    }
    return variants;
  }

  /** Store nicenesses to run availability with, comma-separated, each 0-19 ("0,10"). */
  public static List<Integer> storeNiceness(String value) {
    List<Integer> values = new ArrayList<>();
    for (String item : value.split(",")) {
      int niceness;
      try {
        niceness = Integer.parseInt(item.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("availability: store niceness '" + item + "' is not a number from 0 to 19");
      }
      if (niceness < 0 || niceness > EmbeddedSearchStore.MAX_NICENESS) {
        throw new IllegalArgumentException("availability: store niceness must be 0 to 19, was " + niceness);
      }
      values.add(niceness);
    }
    return values;
  }

  /**
   * Availability per bulk delay; with {@code nicenesses}, once per store niceness for each delay, one after another
   * (an empty list: the node's default niceness, reported under the delay alone).
   */
  /** The {@code availability} report: per bulk delay (and variant), the probes' latencies and the exporter's view. */
  public record Report(String scenario, int probes, long warmUpSeconds, Map<String, AtDelay> latencyMillisByBulkDelay) {}

  /**
   * One bulk delay's run: completed to searchable, per probe (ms); the exporter's export latency (engine timestamp of
   * the oldest record in a flush to the flush being durable) and its parts, the broker's (engine write to the
   * exporter) and the store's (one bulk, flushed on the delay).
   */
  public record AtDelay(long count, long p50, long p90, long p99, long max, Quantiles exporterExportLatencyMillis,
      Quantiles exporterArrivalDelayMillis, Quantiles delayFlushDurationMillis) {}

  public static Report availability(Path root, int probes, List<String> delays, Duration warmUp,
      List<Integer> nicenesses, List<String> settingVariants) throws Exception {
    if (warmUp.isNegative()) {
      throw new IllegalArgumentException("availability: warm-up seconds must not be negative, was " + warmUp.toSeconds());
    }
    Map<String, AtDelay> byDelay = new LinkedHashMap<>();
    List<Integer> variants = nicenesses.isEmpty() ? Collections.singletonList(null) : nicenesses;
    List<String> settings = settingVariants.isEmpty() ? Collections.singletonList(null) : settingVariants;
    for (String delay : delays) {
      for (Integer niceness : variants) {
        for (String setting : settings) {
          String label = delay + (niceness == null ? "" : ", store niceness " + niceness)
              + (setting == null ? "" : ", " + setting);
          List<String> nodeArgs = new ArrayList<>(List.of("--flowpipe.exporter.bulk.delay=" + delay));
          if (niceness != null) {
            nodeArgs.add("--flowpipe.store.embedded.niceness=" + niceness);
          }
          if (setting != null) {
            nodeArgs.add("--" + setting);
          }
          byDelay.put(label, availabilityAt(root, probes, label, nodeArgs, warmUp));
        }
      }
    }
    return new Report("data availability: instance completed (engine end date) to COMPLETED in a store search, "
        + "under 50 PI/s background load; index refresh interval as the node's default", probes,
        Math.max(2, warmUp.toSeconds()), byDelay);
  }

  public static AtDelay availabilityAt(Path root, int probes, String delay, List<String> nodeArgs,
      Duration warmUp) throws Exception {
    System.out.printf("bulk delay %s: starting node%n", delay);
    Path work = ScratchDirectories.create("bench-availability");
    try (NodeProcess node = NodeProcess.start(root, work, nodeArgs);
        ZeebeClient client = ScenarioNodes.client(node);
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.storeUrl()))) {
      ScenarioNodes.deploy(client);
      System.out.printf("bulk delay %s: %d s of background load before the first probe%n", delay,
          Math.max(2, warmUp.toSeconds()));
      Histogram latencies = Availability.run(client, store, "flowpipe", 50, probes, warmUp);
      Percentiles probed = Percentiles.of(latencies);
      String prometheus = node.text("/actuator/prometheus");
      AtDelay result = new AtDelay(probed.count(), probed.p50(), probed.p90(), probed.p99(), probed.max(),
          PrometheusText.exporterLatency(prometheus),
          PrometheusText.quantiles(prometheus, "flowpipe_exporter_arrival_delay_seconds", ""),
          PrometheusText.quantiles(prometheus, "flowpipe_exporter_flush_duration_seconds", "reason=\"delay\""));
      System.out.printf("bulk delay %s: %s%n", delay, result);
      return result;
    }
  }
}
