package dev.flowpipe.benchmarks.scenario.overhead;

import io.camunda.zeebe.client.ZeebeClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.benchmarks.report.Figures;
import dev.flowpipe.benchmarks.load.Saturation;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;

/**
 * Engine throughput per exporter mode, measured in many short windows that alternate between nodes kept warm side by
 * side. Every mode's node (with its store) starts once and is warmed up; then, round after round, one node at a time
 * is resumed and driven to saturation while the others are frozen (SIGSTOP), so they take no CPU. Each round measures
 * every mode within a minute or two, so a change in the shared machine's speed hits all modes of that round alike;
 * the ratio of two modes is taken per round and summarised by its median, which one noisy window cannot move far.
 */
public final class InterleavedOverhead {

  /** Load before each window's measurement, so that a resumed node is back at its steady state. */
  private static final Duration SETTLE = Duration.ofSeconds(5);

  private InterleavedOverhead() {}

  /** The {@code overhead-interleaved} report: per mode, each round's throughput, and the paired ratios. */
  public record Report(String scenario, int warmUpSecondsPerNode, int windowSeconds, long settleSecondsPerWindow, int rounds,
      Map<String, Long> documentsInStoreAfterWarmUp, Map<String, List<Double>> instancesPerSecond,
      Map<String, List<Long>> exporterBehindMillisAfterEachWindow, Map<String, Double> meanInstancesPerSecond,
      Map<String, Ratio> ratios) {}

  /** One mode's throughput over a baseline's, within each round, and their median, minimum and maximum. */
  public record Ratio(List<Double> perRound, double median, double min, double max) {}

  public static Report run(Path root, int windowSeconds, List<String> selected, int warmUpSeconds, int rounds)
      throws Exception {
    if (windowSeconds < 1 || warmUpSeconds < 0 || rounds < 1) {
      throw new IllegalArgumentException("overhead-interleaved: window seconds and rounds must be at least 1 and "
          + "warm-up seconds not negative, were " + windowSeconds + ", " + rounds + " and " + warmUpSeconds);
    }
    Map<String, List<String>> known = Overhead.exporterModes(selected);
    Map<String, NodeProcess> nodes = new LinkedHashMap<>();
    Map<String, ZeebeClient> clients = new LinkedHashMap<>();
    Map<String, List<Double>> results = new LinkedHashMap<>();
    Map<String, Long> documents = new LinkedHashMap<>();
    Map<String, List<Long>> lags = new LinkedHashMap<>();
    try {
      for (String mode : selected) {
        List<String> arguments = new ArrayList<>(known.get(mode));
        arguments.add("--flowpipe.flow-control.enabled=false");
        System.out.printf("%s: starting node, then %d s of warm-up load%n", mode, warmUpSeconds);
        NodeProcess node = NodeProcess.start(root, ScratchDirectories.create("bench-" + mode), arguments,
            Overhead.extraClasspath(root, List.of(mode)));
        nodes.put(mode, node);
        ZeebeClient client = ScenarioNodes.client(node);
        clients.put(mode, client);
        ScenarioNodes.deploy(client);
        Saturation.run(client, Duration.ofSeconds(warmUpSeconds), Duration.ofSeconds(1), 128);
        documents.put(mode, Overhead.documentsWritten(node, mode));
        node.pause();
        results.put(mode, new ArrayList<>());
      }
      for (int round = 1; round <= rounds; round++) {
        // rotate the order, so that no mode always follows the same one
        for (int i = 0; i < selected.size(); i++) {
          String mode = selected.get((i + round - 1) % selected.size());
          NodeProcess node = nodes.get(mode);
          node.resume();
          double perSecond = Saturation.run(clients.get(mode), SETTLE, Duration.ofSeconds(windowSeconds), 128);
          Long lag = Overhead.exporterLagMillis(node, mode);
          node.pause();
          results.get(mode).add(perSecond);
          lags.computeIfAbsent(mode, m -> new ArrayList<>()).add(lag);
          System.out.printf(Locale.ROOT, "round %d/%d, %s: %.1f completed instances/s, exporter behind by %s ms%n",
              round, rounds, mode, perSecond, lag == null ? "-" : lag);
        }
      }
    } finally {
      for (ZeebeClient client : clients.values()) {
        client.close();
      }
      for (NodeProcess node : nodes.values()) {
        node.close();
      }
    }
    return new Report("exporter overhead, interleaved: engine throughput (one service task per instance, 128 in "
        + "flight), flow control off in every mode; all nodes warm side by side, one measured at a time while the "
        + "others are frozen", warmUpSeconds, windowSeconds, SETTLE.toSeconds(), rounds, documents, results, lags,
        Figures.means(results), pairedRatios(results));
  }

  /**
   * For every mode but the no-exporter ones, its ratio to {@code noop} and to {@code none} where those were measured,
   * and every mode of ours to Camunda's {@code stock} exporter: the ratio within each round, and their median, minimum
   * and maximum.
   */
  public static Map<String, Ratio> pairedRatios(Map<String, List<Double>> results) {
    Map<String, Ratio> ratios = new LinkedHashMap<>();
    for (String baseline : List.of("noop", "none", "stock")) {
      if (!results.containsKey(baseline)) {
        continue;
      }
      for (String mode : results.keySet()) {
        if (mode.equals(baseline) || (baseline.equals("noop") && mode.equals("none"))
            || (baseline.equals("stock") && !mode.startsWith("ours"))) {
          continue;
        }
        List<Double> perRound = new ArrayList<>();
        List<Double> ours = results.get(mode);
        List<Double> base = results.get(baseline);
        for (int round = 0; round < Math.min(ours.size(), base.size()); round++) {
          perRound.add(ours.get(round) / base.get(round));
        }
        if (perRound.isEmpty()) {
          continue;
        }
        List<Double> sorted = perRound.stream().sorted().toList();
        ratios.put(mode + "/" + baseline,
            new Ratio(perRound, median(sorted), sorted.get(0), sorted.get(sorted.size() - 1)));
      }
    }
    return ratios;
  }

  /** The median of values sorted ascending. */
  public static double median(List<Double> sorted) {
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
