package dev.flowpipe.importer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.importer.cursor.CursorStore;
import dev.flowpipe.importer.cursor.PartitionCursor;
import dev.flowpipe.importer.source.RawRecordIndices;
import dev.flowpipe.importer.source.SyntheticRawRecords;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreUnavailableException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone importer as a real process, SIGKILLed three times at random moments (seeded; the seed is printed, and
 * {@code -Dflowpipe.importer.kill-seed=<seed>} repeats a run) while it drains a backlog of raw records, restarted
 * each time, and finally run until caught up. The read model must equal what our exporter makes of the same records
 * (the oracle, which shares nothing with the importer but the handlers), field by field. After each kill, the records
 * a restart reads again (those after the stored resume cursor that the read model already reflects) must be at most
 * one bulk's worth: that is what writing the cursor in the same bulk as the documents buys.
 */
@ExtendWith(SharedOpenSearch.class)
class ImporterKilledTest {

  private static final int PARTITIONS = 2;
  private static final int INSTANCES_PER_PARTITION = 500;
  private static final int BULK_SIZE = 100;
  // a synthetic instance has at most 15 records and at least 5 documents of its own, so a bulk of BULK_SIZE documents
  // covers at most BULK_SIZE / 5 whole instances and parts of two more (and the partition's process record)
  private static final int RECORDS_PER_BULK_AT_MOST = 15 * (BULK_SIZE / 5 + 2) + 1;
  private static final int KILLS = 3;

  private final SearchStore store;
  private final String url;
  private final String sourcePrefix = SharedOpenSearch.uniquePrefix();
  private final String expectedPrefix = SharedOpenSearch.uniquePrefix();
  private final String importedPrefix = SharedOpenSearch.uniquePrefix();

  @TempDir Path logs;

  ImporterKilledTest(SearchStore store, EmbeddedSearchStore node) {
    this.store = store;
    this.url = node.url();
  }

  @Test
  void aReadModelImportedThroughThreeKillsEqualsOneCleanPass() throws Exception {
    long seed = Long.getLong("flowpipe.importer.kill-seed", System.nanoTime());
    System.out.println("ImporterKilledTest seed " + seed + " (repeat with -Dflowpipe.importer.kill-seed=" + seed + ")");
    Random random = new Random(seed);
    long startNanos = System.nanoTime();
    SyntheticRawRecords records =
        new SyntheticRawRecords(PARTITIONS, INSTANCES_PER_PARTITION, Instant.parse("2026-11-25T10:00:00Z"), 10);
    records.writeTo(store, new RawRecordIndices(sourcePrefix), r -> true);
    for (int partition = 1; partition <= PARTITIONS; partition++) {
      ExporterOracle.export(url, expectedPrefix, records.partition(partition));
    }
    int instances = PARTITIONS * INSTANCES_PER_PARTITION;
    System.out.printf("%d raw records written and the oracle's read model made in %d ms%n", records.records().size(),
        (System.nanoTime() - startNanos) / 1_000_000);

    for (int kill = 0; kill < KILLS; kill++) {
      // one kill in each third of the drain, at a random point of it, and a random moment after that point is seen
      double fraction = 0.1 + 0.8 * (kill + random.nextDouble()) / KILLS;
      long extraMillis = random.nextInt(150);
      long threshold = Math.round(fraction * instances);
      try (ImporterProcess importer = ImporterProcess.start(arguments(), logs.resolve("run-" + kill + ".log"))) {
        await("kill " + (kill + 1) + ": " + threshold + " instances imported (seed " + seed + ")")
            .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10))
            // the first run creates the read model's index: a count before its shard has started answers 503
            .ignoreException(StoreUnavailableException.class)
            .until(() -> importedInstances() >= threshold || !importer.isAlive());
        assertThat(importer.isAlive()).as("importer running; its output:%n%s", importer.output()).isTrue();
        long killAt = System.nanoTime() + extraMillis * 1_000_000;
        await().pollInterval(Duration.ofMillis(5)).until(() -> System.nanoTime() >= killAt);
        importer.kill();
      }
      long imported = importedInstances();
      System.out.printf("kill %d (seed %d) at %d ms: at %.0f%% of the drain + %d ms, %d of %d instances imported%n",
          kill + 1, seed, (System.nanoTime() - startNanos) / 1_000_000, fraction * 100, extraMillis, imported,
          instances);
      assertThat(imported).as("killed while draining (seed %d)", seed).isLessThan(instances);
      for (int partition = 1; partition <= PARTITIONS; partition++) {
        long reRead = recordsToReadAgain(records, partition);
        System.out.printf("  partition %d: %d records to read again%n", partition, reRead);
        assertThat(reRead).as("records partition %d reads again after kill %d (seed %d)", partition, kill + 1, seed)
            .isBetween(0L, (long) RECORDS_PER_BULK_AT_MOST);
      }
    }

    List<String> last = new ArrayList<>(arguments());
    last.add("--until-caught-up");
    try (ImporterProcess importer = ImporterProcess.start(last, logs.resolve("final.log"))) {
      assertThat(importer.awaitExit(120)).as("the last run exits 0 once caught up; its output:%n%s",
          importer.output()).isZero();
    }
    System.out.printf("caught up at %d ms%n", (System.nanoTime() - startNanos) / 1_000_000);
    ExporterOracle.assertSameReadModel(store, expectedPrefix, importedPrefix);
  }

  private List<String> arguments() {
    return List.of(
        "--flowpipe.importer.source-url=" + url,
        "--flowpipe.importer.source-prefix=" + sourcePrefix,
        "--flowpipe.importer.index-prefix=" + importedPrefix,
        "--flowpipe.importer.page-size=" + 2 * BULK_SIZE,
        "--flowpipe.importer.bulk-size=" + BULK_SIZE,
        "--flowpipe.importer.visibility-grace=50ms",
        "--flowpipe.importer.poll-interval=20ms",
        "--flowpipe.importer.discovery-interval=200ms");
  }

  /** Process-instance documents the import has made searchable (each bulk refreshes what it wrote). */
  private long importedInstances() {
    String index = ReadModelIndex.PROCESS_INSTANCE.indexName(importedPrefix);
    return store.indexExists(index) ? store.count(index) : 0;
  }

  /**
   * After a kill: the records of the partition that a restart reads again, those after the stored resume cursor (where
   * a restart begins) up to the newest record the read model already reflects (the highest document position).
   */
  private long recordsToReadAgain(SyntheticRawRecords records, int partition) {
    long applied = -1;
    for (List<Map<String, Object>> documents : ExporterOracle.readModel(store, importedPrefix).values()) {
      for (Map<String, Object> document : documents) {
        if (document.get("partitionId") instanceof Number p && p.intValue() == partition
            && document.get("position") instanceof Number position) {
          applied = Math.max(applied, position.longValue());
        }
      }
    }
    PartitionCursor resume = new CursorStore(store, importedPrefix).resumeOf(partition, PartitionImport.VALUE_TYPES);
    long readAgain = 0;
    for (SyntheticRawRecords.Stored stored : records.records()) {
      var record = stored.record();
      if (record.getPartitionId() == partition && record.getPosition() <= applied
          && stored.sequence() > resume.sequence(record.getValueType())) {
        readAgain++;
      }
    }
    return readAgain;
  }
}
