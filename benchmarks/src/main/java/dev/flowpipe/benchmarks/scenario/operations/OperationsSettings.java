package dev.flowpipe.benchmarks.scenario.operations;

import dev.flowpipe.benchmarks.cli.ScenarioArguments;
import java.time.Duration;
import java.util.List;

/**
 * The settings of {@code benchmarks/run operations}, validated on construction; every failure names the setting and the
 * bad value.
 *
 * @param operationsPerMode operations of each kind measured with the consistency positions, and as many without
 * @param users people operating at once, each one operation after another
 * @param pollInterval how often a read without the positions is sent again until it shows the effect (the baseline)
 * @param backgroundRate process instances per second of background load during the operations and the batch
 * @param batchInstances waiting instances the batch operation cancels
 * @param loadPhase length of each background-load phase of the batch part (without, then with the batch)
 * @param dashboardProcesses processes deployed for the request counts (the dashboard's rows)
 * @param processElements flow nodes of the process whose page is counted (start, service tasks, end)
 */
public record OperationsSettings(
    int operationsPerMode,
    int users,
    Duration pollInterval,
    int backgroundRate,
    int batchInstances,
    Duration loadPhase,
    int dashboardProcesses,
    int processElements) {

  public OperationsSettings {
    if (operationsPerMode < 1 || operationsPerMode > 500) {
      throw new IllegalArgumentException("--operations must be 1 to 500 per kind and mode (the targets are found in one"
          + " page of 1,000), was " + operationsPerMode);
    }
    if (users < 1 || users > 32) {
      throw new IllegalArgumentException("--users must be 1 to 32, was " + users);
    }
    if (pollInterval == null || pollInterval.toMillis() < 1 || pollInterval.toMillis() > 1_000) {
      throw new IllegalArgumentException("--poll must be 1ms to 1s, was " + pollInterval);
    }
    if (backgroundRate < 1 || backgroundRate > 1_000) {
      throw new IllegalArgumentException("--rate must be 1 to 1000 instances/s, was " + backgroundRate);
    }
    if (batchInstances < 1 || batchInstances > 10_000) {
      throw new IllegalArgumentException("--batch must be 1 to 10000 instances (the web app's batch-max-items), was "
          + batchInstances);
    }
    if (loadPhase == null || loadPhase.toSeconds() < 5 || loadPhase.toSeconds() > 600) {
      throw new IllegalArgumentException("--phase must be 5s to 600s, was " + loadPhase);
    }
    if (dashboardProcesses < 1 || dashboardProcesses > 500) {
      throw new IllegalArgumentException("--processes must be 1 to 500, was " + dashboardProcesses);
    }
    if (processElements < 3 || processElements > 200) {
      throw new IllegalArgumentException("--elements must be 3 to 200 (start, at least one task, end), was "
          + processElements);
    }
  }

  public static OperationsSettings defaults() {
    return new OperationsSettings(100, 4, Duration.ofMillis(20), 50, 1_000, Duration.ofSeconds(30), 10, 10);
  }

  /**
   * The command line: {@code [--operations=100] [--users=4] [--poll=20ms] [--rate=50] [--batch=1000] [--phase=30s]
   * [--processes=10] [--elements=10]}.
   */
  /** Every argument of {@code operations}. */
  public static final List<String> NAMES = List.of("operations", "users", "poll", "rate", "batch", "phase",
      "processes", "elements");

  public static OperationsSettings parse(List<String> args) {
    OperationsSettings d = defaults();
    ScenarioArguments arguments = new ScenarioArguments("operations", args, null);
    OperationsSettings settings = new OperationsSettings(arguments.integer("operations", d.operationsPerMode),
        arguments.integer("users", d.users), arguments.duration("poll", d.pollInterval),
        arguments.integer("rate", d.backgroundRate), arguments.integer("batch", d.batchInstances),
        arguments.duration("phase", d.loadPhase), arguments.integer("processes", d.dashboardProcesses),
        arguments.integer("elements", d.processElements));
    arguments.requireAllKnown(NAMES);
    return settings;
  }
}
