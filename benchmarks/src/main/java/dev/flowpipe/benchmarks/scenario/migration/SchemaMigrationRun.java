package dev.flowpipe.benchmarks.scenario.migration;

import dev.flowpipe.benchmarks.report.Unit;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.IndexLayout;
import dev.flowpipe.schema.index.MigrationProgress;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.PreviousSchemaReadModel;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.systemtests.EmbeddedStores;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;

/**
 * How long a start-up takes to migrate a read model of schema version 1 in place: {@code perEntity} documents in each
 * of the six entity indices (plus two dead letters) in the embedded OpenSearch, then one {@code ensureSchema}, timed.
 */
public final class SchemaMigrationRun {

  private static final String PREFIX = "bench-migration";

  private SchemaMigrationRun() {}

  public static Report run(Path root, int perEntity) throws Exception {
    try (EmbeddedSearchStore node =
            EmbeddedSearchStore.start(ScratchDirectories.create("bench-migration"), EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.url()))) {
      System.out.printf("writing %d documents per entity in schema version 1%n", perEntity);
      PreviousSchemaReadModel.write(node.url(), PREFIX, perEntity);
      MigrationProgress progress = new MigrationProgress();
      double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      long start = System.nanoTime();
      new SchemaManager(store, PREFIX, IndexLayout.singleNode("1s"), progress).ensureSchema();
      double seconds = (System.nanoTime() - start) / 1e9;
      double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      MigrationProgress.Snapshot done = progress.snapshot();
      Report report = Report.describing("start-up migration of a schema-version-1 read model into version 2 (scroll + versioned "
          + "bulk copy, pages of 1000, alias switch, count check, old indices deleted) in the embedded OpenSearch");
      report.body().text("state", done.state().name())
          .figure("documents", done.copied())
          .figure("documentsBefore", done.total())
          .figure("seconds", Math.round(seconds * 100) / 100.0, Unit.SECONDS)
          .figure("documentsPerSecond", Math.round(done.copied() / seconds), Unit.PER_SECOND)
          .figure("loadAverage1mBefore", loadBefore)
          .figure("loadAverage1mAfter", loadAfter);
      return report;
    }
  }
}
