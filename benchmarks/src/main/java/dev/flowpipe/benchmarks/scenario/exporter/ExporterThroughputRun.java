package dev.flowpipe.benchmarks.scenario.exporter;

import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.systemtests.EmbeddedStores;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code exporter-throughput} scenario: our exporter in-process at full speed, with and without bulk refresh.
 */
public final class ExporterThroughputRun {

  private ExporterThroughputRun() {}

  /** The bulk-refresh settings an exporter-throughput run alternates: {@code on}, {@code off} or {@code both}. */
  public static List<Boolean> bulkRefreshModes(String value) {
    return switch (value) {
      case "on" -> List.of(true);
      case "off" -> List.of(false);
      case "both" -> List.of(true, false);
      default -> throw new IllegalArgumentException(
          "exporter-throughput: bulk refresh must be on, off or both, was '" + value + "'");
    };
  }

  /**
   * Records per second through our exporter alone into the embedded OpenSearch: three rounds, each running every
   * bulk-refresh setting once on a fresh index prefix, so drift and JIT warm-up hit the settings alike.
   */
  public static Report exporterThroughput(Path root, int instances, List<Boolean> bulkRefreshModes)
      throws Exception {
    try (EmbeddedSearchStore store = EmbeddedSearchStore.start(ScratchDirectories.create("bench-store"), EmbeddedStores.settings(root))) {
      System.out.println("warm-up: 2000 instances");
      ExporterThroughput.run(store.url(), "warmup", 2_000, 1000);
      List<Section> runs = new ArrayList<>();
      for (int run = 1; run <= 3; run++) {
        for (boolean bulkRefresh : bulkRefreshModes) {
          var result = ExporterThroughput.run(store.url(), "run" + run + (bulkRefresh ? "-refresh" : "-norefresh"),
              instances, 1000, bulkRefresh);
          System.out.printf("run %d, bulk refresh %s: %d records in %.1f s = %.0f records/s%n", run,
              bulkRefresh ? "on" : "off", result.records(), result.seconds(), result.recordsPerSecond());
          runs.add(new Section().figure("round", run).flag("bulkRefresh", bulkRefresh)
              .figure("records", result.records()).figure("documents", result.documents())
              .figure("seconds", result.seconds()).figure("recordsPerSecond", result.recordsPerSecond()));
        }
      }
      Report report = Report.describing("exporter throughput: synthetic one-task instances (13 records, 6 documents each), "
          + "bulk size 1000, delay 100ms, bulk refresh " + bulkRefreshModes + " in each round, into the embedded "
          + "OpenSearch (1 GB heap) on the same machine");
      report.body().figure("instancesPerRun", instances).sections("runs", runs);
      return report;
    }
  }
}
