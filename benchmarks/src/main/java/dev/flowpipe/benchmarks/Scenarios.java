package dev.flowpipe.benchmarks;

import dev.flowpipe.systemtests.BatchRestart;
import dev.flowpipe.systemtests.ClusterCrashSuite;
import dev.flowpipe.systemtests.CrashSuite;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every scenario of {@code benchmarks/run} by name, each a factory of its run from the project root and the command
 * line (the scenario's name at {@code args[0]}, then its positional arguments or {@code --name=value} options, as
 * {@code benchmarks/run} documents them). A new scenario is one line here and a class of its own.
 */
final class Scenarios {

  /**
   * One scenario: runs it and returns its report, a typed record of its own (or, for the scenarios not yet typed, a
   * map), which {@link dev.flowpipe.benchmarks.report.ReportWriter} writes.
   */
  @FunctionalInterface
  interface Scenario {
    Object run(Path root, String[] args) throws Exception;
  }

  private static final Map<String, Scenario> ALL = registry();

  private Scenarios() {}

  /** The scenario of that name; fails naming the known ones. */
  static Scenario named(String name) {
    Scenario scenario = ALL.get(name);
    if (scenario == null) {
      throw new IllegalArgumentException("unknown scenario '" + name + "'; known: " + String.join(", ", ALL.keySet()));
    }
    return scenario;
  }

  static Set<String> names() {
    return ALL.keySet();
  }

  private static Map<String, Scenario> registry() {
    Map<String, Scenario> scenarios = new LinkedHashMap<>();
    scenarios.put("overhead", (root, args) -> Overhead.overhead(root, args.length > 1 ? Integer.parseInt(args[1]) : 30,
        args.length > 2 ? List.of(args[2].split(",")) : List.of("ours", "noop", "none"),
        args.length > 3 ? Integer.parseInt(args[3]) : 60));
    scenarios.put("overhead-interleaved", (root, args) -> InterleavedOverhead.run(root, args.length > 1 ? Integer.parseInt(args[1]) : 20,
        args.length > 2 ? List.of(args[2].split(",")) : List.of("ours", "noop", "none"),
        args.length > 3 ? Integer.parseInt(args[3]) : 120, args.length > 4 ? Integer.parseInt(args[4]) : 6));
    scenarios.put("cpu-cost", (root, args) -> CpuCost.run(root, args.length > 1 ? Integer.parseInt(args[1]) : 50,
        args.length > 4 ? Integer.parseInt(args[4]) : 40, args.length > 2 ? Integer.parseInt(args[2]) : 30,
        args.length > 3 ? List.of(args[3].split(",")) : List.of("ours", "noop", "none"),
        args.length > 5 ? Integer.parseInt(args[5]) : 2));
    scenarios.put("bulk-delay-sweep", (root, args) -> BulkDelaySweep.run(root, args.length > 1 ? Integer.parseInt(args[1]) : 20));
    scenarios.put("baseline", (root, args) -> Baseline.run(root, args.length > 1 ? Integer.parseInt(args[1]) : 20,
        args.length > 2 ? Integer.parseInt(args[2]) : 60));
    scenarios.put("availability", (root, args) -> AvailabilityRun.availability(root, args.length > 1 ? Integer.parseInt(args[1]) : 200,
        AvailabilityRun.availabilityDelays(args.length > 2 ? args[2] : "20ms,100ms,1s"),
        Duration.ofSeconds(args.length > 3 ? Integer.parseInt(args[3]) : 2),
        args.length > 4 && !args[4].equals("-") ? AvailabilityRun.storeNiceness(args[4]) : List.of(),
        args.length > 5 ? AvailabilityRun.nodeSettingVariants(args[5]) : List.of()));
    scenarios.put("exporter-throughput", (root, args) -> ExporterThroughputRun.exporterThroughput(root, args.length > 1 ? Integer.parseInt(args[1]) : 20_000,
        ExporterThroughputRun.bulkRefreshModes(args.length > 2 ? args[2] : "both")));
    scenarios.put("exporter-slow-link", (root, args) -> ExporterSlowLink.run(root, List.of(args).subList(1, args.length)));
    scenarios.put("slow-store", (root, args) -> ExporterSlowLink.run(root, ExporterSlowLink.slowStoreArguments(
        List.of(args).subList(1, args.length))));
    scenarios.put("flow-control", (root, args) -> FlowControlScenario.run(root, args.length > 1 ? Integer.parseInt(args[1]) : 40,
        args.length > 2 ? Double.parseDouble(args[2]) : 45));
    scenarios.put("search-latency", (root, args) -> SearchLatencyRun.searchLatency(root, args.length > 1 ? Integer.parseInt(args[1]) : 100_000,
        args.length > 2 ? Integer.parseInt(args[2]) : 500));
    scenarios.put("refresh-layout", (root, args) -> RefreshLayoutRun.refreshLayout(root, args.length > 1 ? Integer.parseInt(args[1]) : 5,
        args.length > 2 ? Double.parseDouble(args[2]) : 10, args.length > 3 ? Integer.parseInt(args[3]) : 30,
        args.length > 4 ? Integer.parseInt(args[4]) : 3));
    scenarios.put("store-settings", (root, args) -> StoreSettingsAB.run(root, StoreSettingsAB.parseSettings(args.length > 1 ? args[1] : ""),
        args.length > 2 ? Integer.parseInt(args[2]) : 5, args.length > 3 ? Double.parseDouble(args[3]) : 10,
        args.length > 4 ? Integer.parseInt(args[4]) : 30, args.length > 5 ? Integer.parseInt(args[5]) : 3));
    scenarios.put("load", (root, args) -> LoadScenario.run(root, List.of(args).subList(1, args.length)));
    scenarios.put("ramp", (root, args) -> ThroughputRamp.run(root, List.of(args).subList(1, args.length)));
    scenarios.put("scaling", (root, args) -> ScalingRamp.run(root, List.of(args).subList(1, args.length)));
    scenarios.put("slow-network", (root, args) -> SlowNetwork.run(root, List.of(args).subList(1, args.length),
        root.resolve("benchmarks/results/slow-network.html")));
    scenarios.put("crash", (root, args) -> CrashSuite.run(root, List.of(args).subList(1, args.length)));
    scenarios.put("cluster-crash", (root, args) -> ClusterCrashSuite.run(root, List.of(args).subList(1, args.length)));
    scenarios.put("schema-migration", (root, args) -> SchemaMigrationRun.run(root, args.length > 1 ? Integer.parseInt(args[1]) : 20_000));
    scenarios.put("operations", (root, args) -> OperationsScenario.run(root, List.of(args).subList(1, args.length)));
    scenarios.put("batch-restart", (root, args) -> BatchRestart.run(root, List.of(args).subList(1, args.length)));
    scenarios.put("import-drain", (root, args) -> ImportDrain.run(root, args.length > 1 ? Long.parseLong(args[1]) : 1_000_000,
        args.length > 2 ? Integer.parseInt(args[2]) : 20, List.of(args).subList(Math.min(3, args.length), args.length)));
    scenarios.put("legacy-availability", (root, args) -> LegacyAvailability.run(root,
        LegacyAvailabilitySettings.parse(List.of(args).subList(1, args.length))));
    scenarios.put("import-restart", (root, args) -> ImportRestart.run(root,
        ImportRestartSettings.parse(List.of(args).subList(1, args.length))));
    return Collections.unmodifiableMap(scenarios);
  }

}
