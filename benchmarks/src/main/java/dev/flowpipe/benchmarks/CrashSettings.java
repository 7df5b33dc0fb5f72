package dev.flowpipe.benchmarks;

import java.time.Duration;
import java.util.List;

/**
 * One crash-suite run.
 *
 * @param kills how often the node is killed (SIGKILL) under load
 * @param partitions partitions of the node's log
 * @param seed seeds the kill moments and the load's choices
 * @param minUptime shortest time the node runs under load before it is killed
 * @param maxUptime longest such time
 * @param loadAfterLastRestart how long the load goes on after the last restart before it finishes
 * @param rates the load
 * @param nodeArguments further node arguments (e.g. a smaller store heap for tests)
 */
record CrashSettings(int kills, int partitions, long seed, Duration minUptime, Duration maxUptime,
    Duration loadAfterLastRestart, CrashLoad.Rates rates, List<String> nodeArguments) {

  CrashSettings {
    if (kills < 0) {
      throw new IllegalArgumentException("crash: kills must be >= 0, was " + kills);
    }
    if (partitions < 1 || partitions > 8) {
      throw new IllegalArgumentException("crash: partitions must be 1 to 8, was " + partitions);
    }
    if (minUptime.isNegative() || maxUptime.compareTo(minUptime) < 0) {
      throw new IllegalArgumentException("crash: uptime must be 0 <= min <= max, was " + minUptime + " to "
          + maxUptime);
    }
    nodeArguments = List.copyOf(nodeArguments);
  }

  /** {@code benchmarks/run crash}: 8-25 s under load between kills. */
  static CrashSettings benchmark(int kills, int partitions, long seed) {
    return new CrashSettings(kills, partitions, seed, Duration.ofSeconds(8), Duration.ofSeconds(25),
        Duration.ofSeconds(15), new CrashLoad.Rates(8, 6, 0.5), List.of());
  }

  /** The test suite's short run: 4-9 s between kills, a smaller store heap. */
  static CrashSettings test(int kills, int partitions, long seed) {
    return new CrashSettings(kills, partitions, seed, Duration.ofSeconds(4), Duration.ofSeconds(9),
        Duration.ofSeconds(3), new CrashLoad.Rates(6, 6, 0.5), List.of("--flowpipe.store.embedded.heap=512MB"));
  }
}
