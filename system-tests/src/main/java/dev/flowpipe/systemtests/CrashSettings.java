package dev.flowpipe.systemtests;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

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
public record CrashSettings(int kills, int partitions, long seed, Duration minUptime, Duration maxUptime,
    Duration loadAfterLastRestart, CrashLoad.Rates rates, List<String> nodeArguments) {

  public CrashSettings {
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

  /**
   * A node's arguments in a crash run: these settings' partitions and further arguments, the variable value limit the
   * clean pass uses too, and the recording exporter writing to {@code records}. Either way a RESOURCE_EXHAUSTED answer
   * is a refusal the oracle records, never retried.
   */
  public List<String> nodeArgumentsRecordingTo(Path records, boolean flowControl) {
    List<String> arguments = new ArrayList<>(List.of(
        "--flowpipe.flow-control.enabled=" + flowControl,
        "--flowpipe.broker.partitions-count=" + partitions,
        "--flowpipe.exporter.variable-value-limit=" + CrashCheck.VARIABLE_VALUE_LIMIT,
        "--flowpipe.broker.additional-exporters.recorder.class-name=" + RecordFileExporter.class.getName(),
        "--flowpipe.broker.additional-exporters.recorder.args." + RecordFileExporter.DIRECTORY + "=" + records));
    arguments.addAll(nodeArguments);
    return arguments;
  }

  /** A seeded time under load before the next kill, between {@code minUptime} and {@code maxUptime}. */
  public Duration uptime(Random random) {
    long min = minUptime.toMillis();
    long span = maxUptime.toMillis() - min;
    return Duration.ofMillis(min + (span == 0 ? 0 : (long) (random.nextDouble() * span)));
  }

  /** {@code benchmarks/run crash}: 8-25 s under load between kills. */
  public static CrashSettings benchmark(int kills, int partitions, long seed) {
    return new CrashSettings(kills, partitions, seed, Duration.ofSeconds(8), Duration.ofSeconds(25),
        Duration.ofSeconds(15), new CrashLoad.Rates(8, 6, 0.5), List.of());
  }

  /** {@code benchmarks/run cluster-crash}: three partitions, 10-25 s under load between kills. */
  public static CrashSettings cluster(int kills, long seed) {
    return new CrashSettings(kills, 3, seed, Duration.ofSeconds(10), Duration.ofSeconds(25), Duration.ofSeconds(15),
        new CrashLoad.Rates(8, 6, 0.5), List.of());
  }

  /** The test suite's cluster run: three partitions, 5-10 s under load between kills. */
  public static CrashSettings clusterTest(int kills, long seed) {
    return new CrashSettings(kills, 3, seed, Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(3),
        new CrashLoad.Rates(6, 6, 0.5), List.of());
  }

  /** The test suite's short run: 4-9 s between kills, a smaller store heap. */
  public static CrashSettings test(int kills, int partitions, long seed) {
    return new CrashSettings(kills, partitions, seed, Duration.ofSeconds(4), Duration.ofSeconds(9),
        Duration.ofSeconds(3), new CrashLoad.Rates(6, 6, 0.5), List.of("--flowpipe.store.embedded.heap=512MB"));
  }
}
