package dev.flowpipe.benchmarks.scenario.importer;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import java.time.Duration;
import java.util.List;
import dev.flowpipe.benchmarks.cli.ScenarioArguments;

/**
 * One {@code legacy-availability} run.
 *
 * @param loadPerSecond background instances per second (the built-in one-task process, jobs completed at once)
 * @param stockDelaysSeconds the stock exporter's bulk delays, one phase (a fresh node) each; it takes whole seconds
 * @param warmUp how long the load runs on a fresh node before the first probe
 * @param probeTime how long probes are started in each phase
 * @param probesPerSecond probe instances started per second (each counted once the engine has completed it)
 * @param importerArguments further {@code --flowpipe.importer.*} arguments for the importer in the node
 */
public record LegacyAvailabilitySettings(int loadPerSecond, List<Integer> stockDelaysSeconds,
    @JsonSerialize(using = ToStringSerializer.class) Duration warmUp,
    @JsonSerialize(using = ToStringSerializer.class) Duration probeTime, double probesPerSecond,
    List<String> importerArguments) {

  public static final String SCENARIO = "legacy-availability";
  private static final List<String> KNOWN = List.of("rate", "stock-delays", "warm-up", "probe-time",
      "probes-per-second");

  public LegacyAvailabilitySettings {
    if (loadPerSecond < 1) {
      throw new IllegalArgumentException(SCENARIO + ": --rate must be >= 1, was " + loadPerSecond);
    }
    if (stockDelaysSeconds.isEmpty() || stockDelaysSeconds.stream().anyMatch(d -> d < 1)) {
      throw new IllegalArgumentException(SCENARIO + ": --stock-delays must be whole seconds >= 1, was "
          + stockDelaysSeconds);
    }
    if (warmUp.isNegative() || probeTime.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(SCENARIO + ": --warm-up must be >= 0 and --probe-time >= 1s, were " + warmUp
          + " and " + probeTime);
    }
    if (probesPerSecond <= 0 || probesPerSecond > 20) {
      throw new IllegalArgumentException(SCENARIO + ": --probes-per-second must be > 0 and <= 20, was "
          + probesPerSecond);
    }
    stockDelaysSeconds = List.copyOf(stockDelaysSeconds);
    importerArguments = List.copyOf(importerArguments);
  }

  /** {@code --rate=50 --stock-delays=1,5 --warm-up=30s --probe-time=120s --probes-per-second=2 --flowpipe.importer.*=..} */
  public static LegacyAvailabilitySettings parse(List<String> args) {
    ScenarioArguments arguments = new ScenarioArguments(SCENARIO, args, "--flowpipe.importer.");
    int rate = arguments.integer("rate", 50);
    List<Integer> delays = arguments.list("stock-delays", List.of("1", "5")).stream().map(text -> {
      try {
        return Integer.parseInt(text.trim());
      } catch (NumberFormatException e) {
        throw arguments.bad("stock-delays", text, "whole seconds, e.g. 1,5");
      }
    }).toList();
    Duration warmUp = arguments.duration("warm-up", Duration.ofSeconds(30));
    Duration probeTime = arguments.duration("probe-time", Duration.ofSeconds(120));
    double probes = arguments.number("probes-per-second", 2);
    arguments.requireAllKnown(KNOWN);
    return new LegacyAvailabilitySettings(rate, delays, warmUp, probeTime, probes, arguments.passedThrough());
  }
}
