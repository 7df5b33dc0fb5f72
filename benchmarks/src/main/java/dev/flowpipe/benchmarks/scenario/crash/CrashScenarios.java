package dev.flowpipe.benchmarks.scenario.crash;

import dev.flowpipe.benchmarks.cli.ScenarioArguments;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Unit;
import dev.flowpipe.systemtests.BatchChangeRestart;
import dev.flowpipe.systemtests.BatchRestart;
import dev.flowpipe.systemtests.ClusterCrashReport;
import dev.flowpipe.systemtests.ClusterCrashSuite;
import dev.flowpipe.systemtests.CrashReport;
import dev.flowpipe.systemtests.CrashSettings;
import dev.flowpipe.systemtests.CrashSuite;
import dev.flowpipe.systemtests.StockClusterCrash;
import dev.flowpipe.systemtests.WebAppCheck;
import dev.flowpipe.testsupport.ScratchDirectories;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The lab's entry to the system-level proofs of {@code system-tests} ({@code crash}, {@code cluster-crash},
 * {@code stock-cluster-crash}, {@code batch-restart}): their arguments read by the one parser, their typed reports
 * turned into the lab's {@link Report} (ADR 0015). {@code system-tests} cannot depend on the lab, so the bridge is here.
 * The report files keep the keys the docs quote.
 */
public final class CrashScenarios {

  private CrashScenarios() {}

  /** {@code benchmarks/run crash [kills, default 20] [partitions, default 1] [seed, default random]}. */
  public static Report crash(Path root, List<String> args) throws Exception {
    List<String> names = List.of("kills", "partitions", "seed");
    ScenarioArguments arguments = ScenarioArguments.positional("crash", args, names, null);
    int kills = arguments.integer("kills", 20);
    int partitions = arguments.integer("partitions", 1);
    long seed = arguments.whole("seed", new Random().nextLong());
    arguments.requireAllKnown(names);
    CrashReport report = CrashSuite.run(root, CrashSettings.benchmark(kills, partitions, seed), System.out::println);
    CrashSuite.printSummary("crash suite", report);
    return Report.of(crash(report));
  }

  /** {@code benchmarks/run cluster-crash [kills, default 6] [seed, default random]}. */
  public static Report clusterCrash(Path root, List<String> args) throws Exception {
    ClusterCrashReport report = ClusterCrashSuite.run(root, clusterSettings("cluster-crash", args),
        System.out::println);
    CrashSuite.printSummary("cluster crash suite", report.crash());
    for (WebAppCheck.Result webApp : report.webApps()) {
      System.out.printf(Locale.ROOT, "  node %d's web app: %d differences from the store, %d client-oracle "
          + "mismatches%n", webApp.node(), webApp.differenceCount(), webApp.clientMismatchCount());
    }
    return Report.of(crash(report.crash()).text("gateway", report.gateway())
        .typed("failovers", report.failovers()).typed("webApps", report.webApps()));
  }

  /**
   * {@code benchmarks/run stock-cluster-crash [kills, default 6] [seed, default random]}: a cluster of 3 stock brokers
   * (3 partitions, replication 3) and an OpenSearch of the run's own, from the project built under {@code root}.
   */
  public static Report stockClusterCrash(Path root, List<String> args) throws Exception {
    StockClusterCrash.Report report = StockClusterCrash.runOnAClusterOfItsOwn(root,
        clusterSettings("stock-cluster-crash", args), System.out::println);
    CrashSuite.printSummary("stock cluster crash suite", report.crash());
    report.failovers().forEach(failover -> System.out.println("  " + failover));
    System.out.println("  refused (RESOURCE_EXHAUSTED): " + report.refusals());
    return Report.of(new Section().typed("crash", report.crash()).typed("failovers", report.failovers())
        .typed("refusals", report.refusals()).flag(Report.PASSED, report.passed()));
  }

  /** {@code benchmarks/run batch-restart [instances, default 1000] [batch parallelism, default 4]}. */
  public static Report batchRestart(Path root, List<String> args) throws Exception {
    List<String> names = List.of("instances", "parallelism");
    ScenarioArguments arguments = ScenarioArguments.positional("batch-restart", args, names, null);
    int instances = arguments.integer("instances", 1_000);
    int parallelism = arguments.integer("parallelism", 4);
    arguments.requireAllKnown(names);
    if (instances < 3) {
      throw arguments.bad("instances", Integer.toString(instances), ">= 3");
    }
    BatchRestart.Report report = BatchRestart.run(root, ScratchDirectories.create("bench-batch-restart"), instances,
        parallelism, System.out::println);
    return Report.of(new Section().text(Report.SCENARIO, "batch-restart")
        .figure("instances", report.instances())
        .figure("batchParallelism", report.parallelism())
        .figure("itemsDoneAtSigterm", report.doneAtSigterm())
        .figure("itemsDoneAtSigkill", report.doneAtSigkill())
        .figures("restartSeconds", report.restartSeconds(), Unit.SECONDS)
        .figure("batchSeconds", report.batchSeconds(), Unit.SECONDS)
        .typed("progress", report.progress())
        .figure("itemsCompleted", report.itemsCompleted())
        .figure("cancelCommandsSentAgainAndRejected", report.commandsSentAgain())
        .texts("instancesNotCancelledExactlyOnce", report.violations())
        .texts("auditLogNotOneEntryPerBatch", report.auditViolations())
        .flag(Report.PASSED, report.passed()));
  }

  /** {@code batch-change-restart [--instances=1000] [--parallelism=4]}: instances per batch, batch parallelism. */
  public static Report batchChangeRestart(Path root, List<String> args) throws Exception {
    List<String> names = List.of("instances", "parallelism");
    ScenarioArguments arguments = ScenarioArguments.positional("batch-change-restart", args, names, null);
    int instances = arguments.integer("instances", 1_000);
    int parallelism = arguments.integer("parallelism", 4);
    arguments.requireAllKnown(names);
    if (instances < 2) {
      throw arguments.bad("instances", Integer.toString(instances), ">= 2");
    }
    BatchChangeRestart.Report report = BatchChangeRestart.run(root,
        ScratchDirectories.create("bench-batch-change-restart"), instances, parallelism, System.out::println);
    return Report.of(new Section().text(Report.SCENARIO, "batch-change-restart")
        .figure("instancesPerBatch", report.instances())
        .figure("itemsDoneAtSigkill", report.doneAtSigkill())
        .figure("restartSeconds", report.restartSeconds(), Unit.SECONDS)
        .figure("batchSeconds", report.batchSeconds(), Unit.SECONDS)
        .typed("migration", report.migration())
        .typed("modification", report.modification())
        .figure("commandsSentAgainAndRejected", report.commandsSentAgain())
        .texts("instancesNotChangedExactlyOnce", report.violations())
        .texts("auditLogNotOneEntryPerBatch", report.auditViolations())
        .flag(Report.PASSED, report.passed()));
  }

  /** A cluster suite's {@code [kills, default 6] [seed, default random]}. */
  private static CrashSettings clusterSettings(String scenario, List<String> args) {
    List<String> names = List.of("kills", "seed");
    ScenarioArguments arguments = ScenarioArguments.positional(scenario, args, names, null);
    int kills = arguments.integer("kills", 6);
    long seed = arguments.whole("seed", new Random().nextLong());
    arguments.requireAllKnown(names);
    return CrashSettings.cluster(kills, seed);
  }

  /** The crash report in the shape its record has, with the records the node's recorder wrote. */
  private static Section crash(CrashReport report) {
    return Section.of(report).figure("recordsRecorded", report.recordsRecorded());
  }
}
