package dev.flowpipe.benchmarks.scenario.store;

import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.benchmarks.report.Figures;
import dev.flowpipe.benchmarks.scenario.overhead.CpuCost;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code refresh-layout} scenario: the store's CPU with one shared read-model index against one per entity.
 */
public final class RefreshLayoutRun {

  private RefreshLayoutRun() {}

  /**
   * The store's CPU and bulk time with one index per entity against the shared read-model index, every bulk asked to
   * refresh: a 20 s warm-up of each layout, then {@code rounds} rounds running each layout for {@code phaseSeconds}.
   */
  public static Report refreshLayout(Path root, int instancesPerBulk, double bulksPerSecond, int phaseSeconds,
      int rounds) throws Exception {
    if (instancesPerBulk < 1 || bulksPerSecond <= 0 || phaseSeconds < 1 || rounds < 1) {
      throw new IllegalArgumentException("refresh-layout: instances per bulk, bulks/s, phase seconds and rounds must "
          + "be positive, were " + instancesPerBulk + ", " + bulksPerSecond + ", " + phaseSeconds + ", " + rounds);
    }
    try (EmbeddedSearchStore node =
            EmbeddedSearchStore.start(ScratchDirectories.create("bench-store"), EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.url()))) {
      ProcessHandle process = ProcessHandle.of(node.pid()).orElseThrow();
      java.util.function.LongSupplier cpu = () -> CpuCost.cpuNanos(process);
      Map<RefreshLayout.Layout, Map<ReadModelIndex, String>> names = new LinkedHashMap<>();
      for (RefreshLayout.Layout layout : RefreshLayout.Layout.values()) {
        names.put(layout, RefreshLayout.prepare(store, "layout-" + layout.name().toLowerCase().replace('_', '-'),
            layout, "100ms"));
      }
      long[] keys = {0};
      long[] position = {0};
      for (RefreshLayout.Layout layout : RefreshLayout.Layout.values()) {
        System.out.println("warm-up: " + layout + " for 20 s");
        RefreshLayout.phase(store, names.get(layout), layout, 0, instancesPerBulk, bulksPerSecond,
            Duration.ofSeconds(20), cpu, keys, position);
      }
      List<RefreshLayout.Phase> phases = new ArrayList<>();
      for (int round = 1; round <= rounds; round++) {
        for (RefreshLayout.Layout layout : RefreshLayout.Layout.values()) {
          var phase = RefreshLayout.phase(store, names.get(layout), layout, round, instancesPerBulk, bulksPerSecond,
              Duration.ofSeconds(phaseSeconds), cpu, keys, position);
          System.out.printf("round %d, %-10s: %d bulks, %d documents, store %.3f cores, bulk mean %.1f ms, p99 %.1f"
                  + " ms%n", round, layout, phase.bulks(), phase.documents(), phase.storeCores(),
              phase.meanBulkMillis(), phase.p99BulkMillis());
          phases.add(phase);
        }
      }
      Section means = new Section();
      Map<RefreshLayout.Layout, Double> storeCores = new LinkedHashMap<>();
      for (RefreshLayout.Layout layout : RefreshLayout.Layout.values()) {
        var mine = phases.stream().filter(p -> p.layout() == layout).toList();
        storeCores.put(layout, mine.stream().mapToDouble(RefreshLayout.Phase::storeCores).average().orElseThrow());
        means.section(layout.name())
            .figure("storeCores", Figures.round3(storeCores.get(layout)))
            .figure("meanBulkMillis", Figures.round3(mine.stream().mapToDouble(RefreshLayout.Phase::meanBulkMillis)
                .average().orElseThrow()));
      }
      double ratio = storeCores.get(RefreshLayout.Layout.SHARED) / storeCores.get(RefreshLayout.Layout.PER_ENTITY);
      System.out.printf("store CPU, shared / per entity: %.2f%n", ratio);
      Report report = Report.describing("index layout under bulk refresh: bulks of " + instancesPerBulk + " one-task instances ("
          + "7 documents each) at " + bulksPerSecond + " bulks/s, refresh=true on each, into one index per entity "
          + "(PER_ENTITY) or the shared read-model index (SHARED), alternating in one embedded OpenSearch (1 GB heap, "
          + "index refresh interval 100ms)");
      report.body().figure("phaseSeconds", phaseSeconds).typed("phases", phases).section("means", means)
          .figure("storeCpuSharedOverPerEntity", Figures.round3(ratio));
      return report;
    }
  }
}
