package dev.flowpipe.benchmarks;

import dev.flowpipe.benchmarks.cli.ScenarioArguments;
import dev.flowpipe.benchmarks.scenario.availability.AvailabilityRun;
import dev.flowpipe.benchmarks.scenario.crash.CrashScenarios;
import dev.flowpipe.benchmarks.scenario.overhead.Overhead;
import dev.flowpipe.benchmarks.scenario.overhead.InterleavedOverhead;
import dev.flowpipe.benchmarks.scenario.overhead.CpuCost;
import dev.flowpipe.benchmarks.scenario.baseline.Baseline;
import dev.flowpipe.benchmarks.scenario.baseline.BulkDelaySweep;
import dev.flowpipe.benchmarks.scenario.exporter.ExporterThroughputRun;
import dev.flowpipe.benchmarks.scenario.exporter.ExporterSlowLink;
import dev.flowpipe.benchmarks.scenario.store.RefreshLayoutRun;
import dev.flowpipe.benchmarks.scenario.store.StoreSettingsAB;
import dev.flowpipe.benchmarks.scenario.store.SearchLatencyRun;
import dev.flowpipe.benchmarks.scenario.scale.FieldFootprint;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.benchmarks.scenario.scale.Footprint;
import dev.flowpipe.benchmarks.scenario.scale.RetentionCost;
import dev.flowpipe.benchmarks.scenario.scale.ScaleRun;
import dev.flowpipe.benchmarks.fixture.FixtureSettings;
import dev.flowpipe.benchmarks.scenario.flowcontrol.FlowControlScenario;
import dev.flowpipe.benchmarks.scenario.ramp.LoadScenario;
import dev.flowpipe.benchmarks.scenario.ramp.ThroughputRamp;
import dev.flowpipe.benchmarks.scenario.ramp.ScalingRamp;
import dev.flowpipe.benchmarks.scenario.network.SlowNetwork;
import dev.flowpipe.benchmarks.scenario.importer.ImportDrain;
import dev.flowpipe.benchmarks.scenario.importer.ImportRestart;
import dev.flowpipe.benchmarks.scenario.importer.ImportRestartSettings;
import dev.flowpipe.benchmarks.scenario.importer.LegacyAvailability;
import dev.flowpipe.benchmarks.scenario.importer.LegacyAvailabilitySettings;
import dev.flowpipe.benchmarks.scenario.operations.OperationsScenario;
import dev.flowpipe.benchmarks.scenario.live.LivePushScenario;
import dev.flowpipe.benchmarks.scenario.migration.SchemaMigrationRun;
import dev.flowpipe.benchmarks.report.Report;
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
public final class Scenarios {

  /**
   * One scenario: runs it and returns its {@link Report}, which {@link dev.flowpipe.benchmarks.report.ReportWriter}
   * writes.
   */
  @FunctionalInterface
  public interface Scenario {
    Report run(Path root, String[] args) throws Exception;
  }

  private static final List<String> OURS_NOOP_NONE = List.of("ours", "noop", "none");
  private static final Map<String, Scenario> ALL = registry();

  private Scenarios() {}

  /** The scenario of that name; fails naming the known ones. */
  public static Scenario named(String name) {
    Scenario scenario = ALL.get(name);
    if (scenario == null) {
      throw new IllegalArgumentException("unknown scenario '" + name + "'; known: " + String.join(", ", ALL.keySet()));
    }
    return scenario;
  }

  public static Set<String> names() {
    return ALL.keySet();
  }

  private static Map<String, Scenario> registry() {
    Map<String, Scenario> scenarios = new LinkedHashMap<>();
    scenarios.put("overhead", (root, args) -> {
      List<String> names = List.of("seconds", "modes", "warm-up-seconds");
      ScenarioArguments a = arguments(args, names);
      int seconds = a.integer("seconds", 30);
      List<String> modes = a.list("modes", OURS_NOOP_NONE);
      int warmUp = a.integer("warm-up-seconds", 60);
      a.requireAllKnown(names);
      return Overhead.overhead(root, seconds, modes, warmUp);
    });
    scenarios.put("overhead-interleaved", (root, args) -> {
      List<String> names = List.of("window-seconds", "modes", "warm-up-seconds", "rounds");
      ScenarioArguments a = arguments(args, names);
      int window = a.integer("window-seconds", 20);
      List<String> modes = a.list("modes", OURS_NOOP_NONE);
      int warmUp = a.integer("warm-up-seconds", 120);
      int rounds = a.integer("rounds", 6);
      a.requireAllKnown(names);
      return Report.of(InterleavedOverhead.run(root, window, modes, warmUp, rounds));
    });
    scenarios.put("cpu-cost", (root, args) -> {
      List<String> names = List.of("rate", "seconds", "modes", "warm-up-seconds", "rounds");
      ScenarioArguments a = arguments(args, names);
      int rate = a.integer("rate", 50);
      int seconds = a.integer("seconds", 30);
      List<String> modes = a.list("modes", OURS_NOOP_NONE);
      int warmUp = a.integer("warm-up-seconds", 40);
      int rounds = a.integer("rounds", 2);
      a.requireAllKnown(names);
      return CpuCost.run(root, rate, warmUp, seconds, modes, rounds);
    });
    scenarios.put("bulk-delay-sweep", (root, args) -> {
      List<String> names = List.of("probes");
      ScenarioArguments a = arguments(args, names);
      int probes = a.integer("probes", 20);
      a.requireAllKnown(names);
      return BulkDelaySweep.run(root, probes);
    });
    scenarios.put("baseline", (root, args) -> {
      List<String> names = List.of("seconds", "probes");
      ScenarioArguments a = arguments(args, names);
      int seconds = a.integer("seconds", 20);
      int probes = a.integer("probes", 60);
      a.requireAllKnown(names);
      return Baseline.run(root, seconds, probes);
    });
    scenarios.put("availability", (root, args) -> {
      List<String> names = List.of("probes", "delays", "warm-up-seconds", "store-niceness", "node-settings");
      ScenarioArguments a = arguments(args, names);
      int probes = a.integer("probes", 200);
      List<String> delays = AvailabilityRun.availabilityDelays(a.text("delays", "20ms,100ms,1s"));
      Duration warmUp = Duration.ofSeconds(a.integer("warm-up-seconds", 2));
      String niceness = a.text("store-niceness", "-");
      List<Integer> nicenesses = niceness.equals("-") ? List.of() : AvailabilityRun.storeNiceness(niceness);
      String settings = a.text("node-settings", null);
      List<String> variants = settings == null ? List.of() : AvailabilityRun.nodeSettingVariants(settings);
      a.requireAllKnown(names);
      return Report.of(AvailabilityRun.availability(root, probes, delays, warmUp, nicenesses, variants));
    });
    scenarios.put("exporter-throughput", (root, args) -> {
      List<String> names = List.of("instances", "bulk-refresh");
      ScenarioArguments a = arguments(args, names);
      int instances = a.integer("instances", 20_000);
      List<Boolean> refresh = ExporterThroughputRun.bulkRefreshModes(a.text("bulk-refresh", "both"));
      a.requireAllKnown(names);
      return ExporterThroughputRun.exporterThroughput(root, instances, refresh);
    });
    scenarios.put("exporter-slow-link", (root, args) -> ExporterSlowLink.run(root,
        ExporterSlowLink.Settings.parse(List.of(args).subList(1, args.length))));
    scenarios.put("slow-store", (root, args) -> ExporterSlowLink.run(root,
        ExporterSlowLink.Settings.slowStore(List.of(args).subList(1, args.length))));
    scenarios.put("flow-control", (root, args) -> {
      List<String> names = List.of("rate", "store-operations-per-second");
      ScenarioArguments a = arguments(args, names);
      int rate = a.integer("rate", 40);
      double storeOps = a.number("store-operations-per-second", 45);
      a.requireAllKnown(names);
      return FlowControlScenario.run(root, rate, storeOps);
    });
    scenarios.put("live-push", (root, args) -> {
      List<String> names = List.of("rate", "probes-per-second", "seconds", "idle-seconds", "streams", "live-refresh");
      ScenarioArguments a = arguments(args, names);
      int rate = a.integer("rate", 50);
      int probes = a.integer("probes-per-second", 5);
      int seconds = a.integer("seconds", 60);
      int idle = a.integer("idle-seconds", 60);
      int streams = a.integer("streams", 1);
      // off: the node's default while its exporter refreshes each bulk (LiveRefreshDefault)
      String liveRefresh = a.text("live-refresh", "off");
      a.requireAllKnown(names);
      if (!liveRefresh.equals("on") && !liveRefresh.equals("off")) {
        throw new IllegalArgumentException("--live-refresh must be on or off, was " + liveRefresh);
      }
      if (streams < 1) {
        throw new IllegalArgumentException("--streams must be 1 or more, was " + streams);
      }
      return Report.of(LivePushScenario.run(root, rate, probes, seconds, idle, streams,
          liveRefresh.equals("on")));
    });
    scenarios.put("search-latency", (root, args) -> {
      List<String> names = List.of("instances", "runs");
      ScenarioArguments a = arguments(args, names);
      int instances = a.integer("instances", 100_000);
      int runs = a.integer("runs", 500);
      a.requireAllKnown(names);
      return SearchLatencyRun.searchLatency(root, instances, runs);
    });
    scenarios.put("scale", (root, args) -> {
      List<String> names = List.of("instances", "definitions", "versions", "partitions", "runs", "active-per-mille");
      ScenarioArguments a = arguments(args, names);
      FixtureSettings settings = FixtureSettings.of(a.whole("instances", 100_000), a.integer("definitions", 5),
          a.integer("versions", 3)).withPartitions(a.integer("partitions", 2))
          .withActivePerMille(a.integer("active-per-mille", 50));
      int runs = a.integer("runs", 200);
      a.requireAllKnown(names);
      return ScaleRun.run(root, settings, runs);
    });
    scenarios.put("footprint", (root, args) -> {
      List<String> names = List.of("instances");
      ScenarioArguments a = arguments(args, names);
      int instances = a.integer("instances", 2_000);
      a.requireAllKnown(names);
      return Footprint.run(root, instances);
    });
    scenarios.put("footprint-fields", (root, args) -> {
      List<String> names = List.of("instances", "engine");
      ScenarioArguments a = arguments(args, names);
      int instances = a.integer("instances", 2_000);
      String engine = a.text("engine", "elasticsearch");
      a.requireAllKnown(names);
      return FieldFootprint.run(root, instances, switch (engine) {
        case "elasticsearch" -> EmbeddedSearchStore.Engine.ELASTICSEARCH;
        case "opensearch" -> EmbeddedSearchStore.Engine.OPENSEARCH;
        default -> throw a.bad("engine", engine, "elasticsearch or opensearch");
      });
    });
    scenarios.put("retention-cost", (root, args) -> {
      List<String> names = List.of("instances", "periods");
      ScenarioArguments a = arguments(args, names);
      long instances = a.whole("instances", 10_000);
      int periods = a.integer("periods", 10);
      a.requireAllKnown(names);
      return RetentionCost.run(root, instances, periods);
    });
    scenarios.put("refresh-layout", (root, args) -> {
      List<String> names = List.of("instances-per-bulk", "bulks-per-second", "phase-seconds", "rounds");
      ScenarioArguments a = arguments(args, names);
      int perBulk = a.integer("instances-per-bulk", 5);
      double bulksPerSecond = a.number("bulks-per-second", 10);
      int phaseSeconds = a.integer("phase-seconds", 30);
      int rounds = a.integer("rounds", 3);
      a.requireAllKnown(names);
      return RefreshLayoutRun.refreshLayout(root, perBulk, bulksPerSecond, phaseSeconds, rounds);
    });
    scenarios.put("store-settings", (root, args) -> {
      List<String> names = List.of("settings", "instances-per-bulk", "bulks-per-second", "phase-seconds", "rounds");
      ScenarioArguments a = arguments(args, names);
      String settings = a.text("settings", "");
      int perBulk = a.integer("instances-per-bulk", 5);
      double bulksPerSecond = a.number("bulks-per-second", 10);
      int phaseSeconds = a.integer("phase-seconds", 30);
      int rounds = a.integer("rounds", 3);
      a.requireAllKnown(names);
      return StoreSettingsAB.run(root, StoreSettingsAB.parseSettings(settings), perBulk, bulksPerSecond, phaseSeconds,
          rounds);
    });
    scenarios.put("load", (root, args) -> LoadScenario.run(root, List.of(args).subList(1, args.length)));
    scenarios.put("ramp", (root, args) -> ThroughputRamp.run(root, List.of(args).subList(1, args.length)));
    scenarios.put("scaling", (root, args) -> ScalingRamp.run(root, List.of(args).subList(1, args.length)));
    scenarios.put("slow-network", (root, args) -> SlowNetwork.run(root, List.of(args).subList(1, args.length),
        root.resolve("benchmarks/results/slow-network.html")));
    scenarios.put("crash", (root, args) -> CrashScenarios.crash(root, List.of(args).subList(1, args.length)));
    scenarios.put("cluster-crash", (root, args) -> CrashScenarios.clusterCrash(root,
        List.of(args).subList(1, args.length)));
    scenarios.put("stock-cluster-crash", (root, args) -> CrashScenarios.stockClusterCrash(root,
        List.of(args).subList(1, args.length)));
    scenarios.put("schema-migration", (root, args) -> {
      List<String> names = List.of("documents-per-entity");
      ScenarioArguments a = arguments(args, names);
      int perEntity = a.integer("documents-per-entity", 20_000);
      a.requireAllKnown(names);
      return SchemaMigrationRun.run(root, perEntity);
    });
    scenarios.put("operations", (root, args) -> Report.of(OperationsScenario.run(root,
        List.of(args).subList(1, args.length))));
    scenarios.put("batch-restart", (root, args) -> CrashScenarios.batchRestart(root,
        List.of(args).subList(1, args.length)));
    scenarios.put("batch-change-restart", (root, args) -> CrashScenarios.batchChangeRestart(root,
        List.of(args).subList(1, args.length)));
    scenarios.put("import-drain", (root, args) -> {
      List<String> names = List.of("records", "recording-seconds");
      ScenarioArguments a = ScenarioArguments.positional(args[0], List.of(args).subList(1, args.length), names,
          "--flowpipe.importer.");
      long records = a.whole("records", 1_000_000);
      int recordingSeconds = a.integer("recording-seconds", 20);
      a.requireAllKnown(names);
      return Report.of(ImportDrain.run(root, records, recordingSeconds, a.passedThrough()));
    });
    scenarios.put("legacy-availability", (root, args) -> Report.of(LegacyAvailability.run(root,
        LegacyAvailabilitySettings.parse(List.of(args).subList(1, args.length)))));
    scenarios.put("import-restart", (root, args) -> Report.of(ImportRestart.run(root,
        ImportRestartSettings.parse(List.of(args).subList(1, args.length)))));
    return Collections.unmodifiableMap(scenarios);
  }

  /** A scenario's arguments, its leading positional ones read as {@code --names[i]=value}. */
  private static ScenarioArguments arguments(String[] args, List<String> names) {
    return ScenarioArguments.positional(args[0], List.of(args).subList(1, args.length), names, null);
  }

}
