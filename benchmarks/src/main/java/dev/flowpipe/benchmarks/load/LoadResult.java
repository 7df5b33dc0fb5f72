package dev.flowpipe.benchmarks.load;

import dev.flowpipe.benchmarks.report.Section;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.HdrHistogram.Histogram;
import dev.flowpipe.benchmarks.report.Figures;

/**
 * What one load run measured: the per-second windows (the load's seconds, then the seconds in which the last instances
 * drained), the latency of every completed instance, and the errors other than backpressure.
 *
 * @param loadSeconds the seconds in which instances were started; windows from this index on are the drain
 * @param errorMessages the first message of each kind of error
 * @param notFinished instances still in flight when the run gave up waiting for them
 */
public record LoadResult(
    LoadSettings settings,
    String processId,
    List<LoadWindow> windows,
    int loadSeconds,
    Histogram latency,
    Map<String, Long> errorKinds,
    Map<String, String> errorMessages,
    long notFinished) {

  /** The windows in which instances were started. */
  public List<LoadWindow> loadWindows() {
    return windows.subList(0, Math.min(loadSeconds, windows.size()));
  }

  public long total(ToLongFunction<LoadWindow> field) {
    return windows.stream().mapToLong(field).sum();
  }

  /** Accepted creates per second of load. */
  public double createdPerSecond() {
    return total(LoadWindow::created) / (double) loadSeconds;
  }

  /** Completions per second over the load's seconds (not the drain). */
  public double completedPerSecond() {
    return loadWindows().stream().mapToLong(LoadWindow::completed).sum() / (double) loadSeconds;
  }

  /** Rejected commands (creates and job completions) as a share of all commands sent, 0 to 1. */
  public double rejectedShare() {
    long commands = total(LoadWindow::commands);
    return commands == 0 ? 0 : total(LoadWindow::rejected) / (double) commands;
  }

  public long maxLagAgeMillis() {
    return windows.stream().mapToLong(LoadWindow::lagAgeMillis).max().orElse(-1);
  }

  public long maxLagRecords() {
    return windows.stream().mapToLong(LoadWindow::lagRecords).max().orElse(-1);
  }

  public double meanLagAgeMillis() {
    return loadWindows().stream().mapToLong(LoadWindow::lagAgeMillis).filter(v -> v >= 0).average().orElse(-1);
  }

  public Section summary() {
    Section m = new Section().figure("offeredPerSecond", settings.ratePerSecond())
        .figure("loadSeconds", loadSeconds)
        .figure("createAttempts", total(LoadWindow::createAttempts))
        .figure("created", total(LoadWindow::created))
        .figure("completed", total(LoadWindow::completed))
        .figure("createRejected", total(LoadWindow::createRejected))
        .figure("completeAttempts", total(LoadWindow::completeAttempts))
        .figure("completeRejected", total(LoadWindow::completeRejected))
        .figure("heldBackAtInFlightLimit", total(LoadWindow::heldBack))
        .figure("createTimedOut", total(LoadWindow::createTimedOut))
        .typed("otherErrors", errorKinds);
    if (!errorMessages.isEmpty()) {
      m.typed("otherErrorMessages", errorMessages);
    }
    m.figure("notFinished", notFinished)
        .figure("createdPerSecond", round(createdPerSecond()))
        .figure("completedPerSecond", round(completedPerSecond()))
        .figure("rejectedShare", Math.round(rejectedShare() * 10_000) / 10_000.0)
        .section("executionLatencyMillis", Figures.percentiles(latency));
    m.section("exporterLag")
        .figure("meanAgeMillis", meanLagAgeMillis() < 0 ? null : Math.round(meanLagAgeMillis()))
        .figure("maxAgeMillis", maxLagAgeMillis() < 0 ? null : maxLagAgeMillis())
        .figure("maxRecords", maxLagRecords() < 0 ? null : maxLagRecords());
    return m;
  }

  public static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }
}
