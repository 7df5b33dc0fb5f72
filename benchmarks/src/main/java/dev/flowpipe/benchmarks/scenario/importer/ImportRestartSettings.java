package dev.flowpipe.benchmarks.scenario.importer;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import java.time.Duration;
import java.util.List;
import dev.flowpipe.benchmarks.cli.ScenarioArguments;

/**
 * One {@code import-restart} run.
 *
 * @param loadPerSecond instances per second of the one-task process, all through the run
 * @param partitions partitions of the node's log (one import thread each)
 * @param downtime how long the importer stays stopped while the load goes on
 * @param stops how it is stopped, one case each in turn: TERM (SIGTERM, a clean stop) or KILL (SIGKILL, a crash)
 * @param steady how long the caught-up importer runs before the first stop (the independent check is judged there too)
 * @param catchUpLimit the longest wait for a restarted importer to catch up before the run fails
 * @param importerArguments further {@code --flowpipe.importer.*} arguments for bin/flowpipe-importer
 */
public record ImportRestartSettings(int loadPerSecond, int partitions,
    @JsonSerialize(using = ToStringSerializer.class) Duration downtime, List<String> stops,
    @JsonSerialize(using = ToStringSerializer.class) Duration steady,
    @JsonSerialize(using = ToStringSerializer.class) Duration catchUpLimit, List<String> importerArguments) {

  public static final String SCENARIO = "import-restart";
  private static final List<String> KNOWN = List.of("rate", "partitions", "downtime", "stops", "steady",
      "catch-up-limit");

  public ImportRestartSettings {
    if (loadPerSecond < 1) {
      throw new IllegalArgumentException(SCENARIO + ": --rate must be >= 1, was " + loadPerSecond);
    }
    if (partitions < 1 || partitions > 8) {
      throw new IllegalArgumentException(SCENARIO + ": --partitions must be 1 to 8, was " + partitions);
    }
    if (downtime.isNegative() || steady.isNegative() || catchUpLimit.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(SCENARIO + ": --downtime and --steady must be >= 0 and --catch-up-limit >= "
          + "1s, were " + downtime + ", " + steady + " and " + catchUpLimit);
    }
    if (stops.isEmpty() || !List.of("TERM", "KILL").containsAll(stops)) {
      throw new IllegalArgumentException(SCENARIO + ": --stops must list TERM and/or KILL, was '"
          + String.join(",", stops) + "'");
    }
    stops = List.copyOf(stops);
    importerArguments = List.copyOf(importerArguments);
  }

  /** {@code --rate=50 --partitions=2 --downtime=30s --stops=TERM,KILL --steady=20s --catch-up-limit=10m}. */
  public static ImportRestartSettings parse(List<String> args) {
    ScenarioArguments arguments = new ScenarioArguments(SCENARIO, args, "--flowpipe.importer.");
    ImportRestartSettings settings = new ImportRestartSettings(arguments.integer("rate", 50),
        arguments.integer("partitions", 2), arguments.duration("downtime", Duration.ofSeconds(30)),
        arguments.list("stops", List.of("TERM", "KILL")), arguments.duration("steady", Duration.ofSeconds(20)),
        arguments.duration("catch-up-limit", Duration.ofMinutes(10)), arguments.passedThrough());
    arguments.requireAllKnown(KNOWN);
    return settings;
  }
}
