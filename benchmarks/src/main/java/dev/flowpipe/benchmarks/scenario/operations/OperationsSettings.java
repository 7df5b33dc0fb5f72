package dev.flowpipe.benchmarks.scenario.operations;

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
  public static OperationsSettings parse(List<String> args) {
    OperationsSettings s = defaults();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("operations: arguments are --name=value, was '" + arg + "'");
      }
      String name = arg.substring(0, eq);
      String value = arg.substring(eq + 1);
      s = switch (name) {
        case "--operations" -> new OperationsSettings(number(name, value), s.users, s.pollInterval, s.backgroundRate,
            s.batchInstances, s.loadPhase, s.dashboardProcesses, s.processElements);
        case "--users" -> new OperationsSettings(s.operationsPerMode, number(name, value), s.pollInterval,
            s.backgroundRate, s.batchInstances, s.loadPhase, s.dashboardProcesses, s.processElements);
        case "--poll" -> new OperationsSettings(s.operationsPerMode, s.users, duration(name, value), s.backgroundRate,
            s.batchInstances, s.loadPhase, s.dashboardProcesses, s.processElements);
        case "--rate" -> new OperationsSettings(s.operationsPerMode, s.users, s.pollInterval, number(name, value),
            s.batchInstances, s.loadPhase, s.dashboardProcesses, s.processElements);
        case "--batch" -> new OperationsSettings(s.operationsPerMode, s.users, s.pollInterval, s.backgroundRate,
            number(name, value), s.loadPhase, s.dashboardProcesses, s.processElements);
        case "--phase" -> new OperationsSettings(s.operationsPerMode, s.users, s.pollInterval, s.backgroundRate,
            s.batchInstances, duration(name, value), s.dashboardProcesses, s.processElements);
        case "--processes" -> new OperationsSettings(s.operationsPerMode, s.users, s.pollInterval, s.backgroundRate,
            s.batchInstances, s.loadPhase, number(name, value), s.processElements);
        case "--elements" -> new OperationsSettings(s.operationsPerMode, s.users, s.pollInterval, s.backgroundRate,
            s.batchInstances, s.loadPhase, s.dashboardProcesses, number(name, value));
        default -> throw new IllegalArgumentException("operations: unknown argument '" + name
            + "' (known: --operations, --users, --poll, --rate, --batch, --phase, --processes, --elements)");
      };
    }
    return s;
  }

  private static int number(String name, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, was '" + value + "'");
    }
  }

  /** {@code 20ms}, {@code 30s}. */
  private static Duration duration(String name, String value) {
    var m = java.util.regex.Pattern.compile("(\\d+)(ms|s)").matcher(value);
    if (!m.matches()) {
      throw new IllegalArgumentException(name + " must be a duration such as 20ms or 30s, was '" + value + "'");
    }
    long amount = Long.parseLong(m.group(1));
    return m.group(2).equals("ms") ? Duration.ofMillis(amount) : Duration.ofSeconds(amount);
  }
}
