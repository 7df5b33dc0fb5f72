package dev.flowpipe.systemtests;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The end of a crash run, once the load has finished: waits until the record files stop growing, feeds every recorded
 * record once to a clean pass under a fresh prefix, waits until the node's exporters have acknowledged the last record
 * they take, and compares the read model with the clean pass ({@link ReadModelDiff}) and with what the clients know
 * ({@link ClientOracle}), and the export-position marks with the documents and acknowledgements.
 */
public final class CrashCheck {

  /** The node's variable value limit, given to the clean pass too (both must truncate alike). */
  static final int VARIABLE_VALUE_LIMIT = 8191;

  /**
   * What the check found.
   *
   * @param recorded what the record files held, per partition (merged over all nodes' files)
   * @param caughtUp whether the exporters acknowledged every record they take before the comparison
   */
  public record Outcome(List<RecordFiles.Summary> recorded, boolean caughtUp, ClientOracle.Verdict verdict,
      ReadModelDiff.Result diff, List<CrashReport.ExportPosition> exportPositions) {

    boolean passed() {
      return caughtUp && diff.same() && verdict.mismatches().isEmpty()
          && exportPositions.stream().allMatch(CrashReport.ExportPosition::sound);
    }
  }

  private CrashCheck() {}

  /**
   * @param nodePrefix the index prefix the nodes write under
   * @param recordDirectories every node's record directory
   * @param acknowledged the exporters' acknowledged position per partition now (in a cluster, the leaders')
   */
  public static Outcome run(SearchStore store, String storeUrl, String nodePrefix, List<Path> recordDirectories,
      int partitions, ClientOracle oracle, Supplier<Map<Integer, Long>> acknowledged, Consumer<String> progress)
      throws IOException, InterruptedException {
    progress.accept("waiting for the log to be quiet");
    awaitStableFiles(recordDirectories, Duration.ofSeconds(3), Duration.ofSeconds(60));
    String cleanPrefix = "clean-" + UUID.randomUUID().toString().substring(0, 8);
    progress.accept("clean pass of the recorded records into '" + cleanPrefix + "'");
    Map<Integer, Long> lastExported = new HashMap<>();
    List<RecordFiles.Summary> recorded = cleanPass(recordDirectories, storeUrl, cleanPrefix, lastExported);
    if (recorded.size() != partitions) {
      throw new IllegalStateException("record files for " + recorded.size() + " partitions, expected " + partitions
          + " in " + recordDirectories);
    }
    boolean caughtUp = awaitExporter(acknowledged, lastExported, Duration.ofSeconds(120));
    progress.accept("exporter " + (caughtUp ? "caught up" : "DID NOT catch up within 120 s")
        + "; comparing the read models");
    ReadModelDiff.Result diff = ReadModelDiff.compare(store, cleanPrefix, nodePrefix);
    ClientOracle.Verdict verdict = oracle.check(ReadModelSource.of(store, nodePrefix));
    return new Outcome(recorded, caughtUp, verdict, diff,
        exportPositions(store, nodePrefix, recorded, acknowledged.get()));
  }

  /**
   * Feeds each partition's recorded records to a clean pass under {@code prefix}; notes in {@code lastExported} the
   * last position per partition that our exporter takes. Returns what the record files held.
   */
  private static List<RecordFiles.Summary> cleanPass(List<Path> directories, String storeUrl, String prefix,
      Map<Integer, Long> lastExported) throws IOException {
    List<RecordFiles.Summary> recorded = new ArrayList<>();
    for (int partition : RecordFiles.partitions(directories)) {
      try (CleanPass pass = new CleanPass(storeUrl, prefix, partition, VARIABLE_VALUE_LIMIT)) {
        recorded.add(RecordFiles.replay(directories, partition, record -> {
          if (CleanPass.exported(record)) {
            lastExported.put(partition, record.getPosition());
          }
          pass.export(record);
        }));
      }
    }
    return recorded;
  }

  /** Until no record file has grown for {@code stable}: the brokers have nothing more to export. */
  private static void awaitStableFiles(List<Path> directories, Duration stable, Duration atMost)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    Map<Path, Long> sizes = sizes(directories);
    long stableSince = System.nanoTime();
    while (System.nanoTime() - stableSince < stable.toNanos()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the record files kept growing for " + atMost + " after the load ended");
      }
      Thread.sleep(200);
      Map<Path, Long> now = sizes(directories);
      if (!now.equals(sizes)) {
        sizes = now;
        stableSince = System.nanoTime();
      }
    }
  }

  private static Map<Path, Long> sizes(List<Path> directories) throws IOException {
    Map<Path, Long> sizes = new HashMap<>();
    for (Path directory : directories) {
      for (int partition : RecordFiles.partitions(directory)) {
        Path file = RecordFileExporter.fileOf(directory, partition);
        sizes.put(file, Files.size(file));
      }
    }
    return sizes;
  }

  /** Until the exporters have acknowledged, on every partition, the last record they take. */
  private static boolean awaitExporter(Supplier<Map<Integer, Long>> acknowledged, Map<Integer, Long> lastExported,
      Duration atMost) throws InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (System.nanoTime() < deadline) {
      Map<Integer, Long> durable = acknowledged.get();
      if (lastExported.entrySet().stream().allMatch(e -> durable.getOrDefault(e.getKey(), -1L) >= e.getValue())) {
        return true;
      }
      Thread.sleep(250);
    }
    return false;
  }

  /** The export-position mark per partition, with what it must lie between. */
  private static List<CrashReport.ExportPosition> exportPositions(SearchStore store, String prefix,
      List<RecordFiles.Summary> recorded, Map<Integer, Long> acknowledged) {
    Map<Integer, Long> highest = ReadModelDiff.highestPositions(store, prefix);
    String index = ReadModelIndex.EXPORT_POSITION.indexName(prefix);
    store.refresh(index);
    List<CrashReport.ExportPosition> positions = new ArrayList<>();
    for (RecordFiles.Summary file : recorded) {
      int partition = file.partition();
      long mark = store.get(index, ReadModelIndex.exportPositionId(partition))
          .map(document -> document.get("position") instanceof Number n ? n.longValue() : -1L).orElse(-1L);
      positions.add(new CrashReport.ExportPosition(partition, mark, highest.getOrDefault(partition, -1L),
          acknowledged.getOrDefault(partition, -1L)));
    }
    return positions;
  }
}
