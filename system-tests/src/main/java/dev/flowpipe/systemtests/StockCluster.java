package dev.flowpipe.systemtests;

import dev.flowpipe.exporter.ReadModelExporter;
import dev.flowpipe.testsupport.ClusterTopology;
import dev.flowpipe.testsupport.StockZeebeBroker;
import dev.flowpipe.testsupport.StockZeebeCluster;
import dev.flowpipe.writer.config.WriterSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.IntStream;

/**
 * A stock Zeebe 8.6 cluster as a user runs it beside flowpipe ({@link StockZeebeCluster}): camunda-exporter's
 * standalone jar declared in every broker's YAML, writing to one store under one index prefix, and beside it in every
 * broker the {@link RecordFileExporter} (from a jar of its own), whose files are the engine's own account of what
 * happened: the oracle the crash check's clean pass reads, independent of our exporter's output.
 */
public final class StockCluster implements AutoCloseable {

  /** The id of our exporter in the brokers' YAML. */
  public static final String EXPORTER_ID = "flowpipe";
  private static final String RECORDER_ID = "recorder";

  private final StockZeebeCluster cluster;
  private final Path records;
  private final String indexPrefix;

  private StockCluster(StockZeebeCluster cluster, Path records, String indexPrefix) {
    this.cluster = cluster;
    this.records = records;
    this.indexPrefix = indexPrefix;
  }

  /**
   * Starts {@code brokers} brokers holding {@code partitions} partitions, replicated {@code replicationFactor} times,
   * under {@code work}, our exporter (from {@code exporterJar}) writing to {@code storeUrl} under {@code indexPrefix}.
   */
  public static StockCluster start(Path work, Path exporterJar, String storeUrl, String indexPrefix, int brokers,
      int partitions, int replicationFactor) throws IOException {
    return start(StockZeebeCluster.distributionHome(), work, exporterJar, storeUrl, indexPrefix, brokers, partitions,
        replicationFactor);
  }

  /** As {@link #start(Path, Path, String, String, int, int, int)}, with the distribution unpacked at {@code home}. */
  public static StockCluster start(Path home, Path work, Path exporterJar, String storeUrl, String indexPrefix,
      int brokers, int partitions, int replicationFactor) throws IOException {
    if (!Files.isRegularFile(exporterJar)) {
      throw new IllegalStateException("no standalone exporter jar at " + exporterJar + " (camunda-exporter's package)");
    }
    Path records = work.resolve("records");
    Path recorderJar = recorderJar(work.resolve("recorder.jar"));
    var ours = new StockZeebeCluster.Exporter(EXPORTER_ID, ReadModelExporter.class.getName(), exporterJar, Map.of(
        WriterSettings.URL, storeUrl,
        WriterSettings.INDEX_PREFIX, indexPrefix,
        WriterSettings.BULK_DELAY, "50ms",
        // the clean pass truncates alike
        WriterSettings.VARIABLE_VALUE_LIMIT, String.valueOf(CrashCheck.VARIABLE_VALUE_LIMIT)));
    // every broker writes the partitions it leads into a directory of its own (a follower's exporters do not run)
    var recorder = new StockZeebeCluster.Exporter(RECORDER_ID, RecordFileExporter.class.getName(), recorderJar,
        Map.of(RecordFileExporter.DIRECTORY, records.resolve(StockZeebeCluster.NODE_ID).toString()));
    var settings = new StockZeebeCluster.Settings(home, work, brokers, partitions, replicationFactor,
        List.of(ours, recorder), Map.of(), StockZeebeCluster.TEST_JAVA_OPTIONS);
    return new StockCluster(StockZeebeCluster.start(settings), records, indexPrefix);
  }

  /**
   * A jar holding the recording exporter alone: the broker loads an exporter from a jar, and this one needs nothing
   * beyond the exporter API and the protocol, which the broker provides.
   */
  static Path recorderJar(Path jar) throws IOException {
    String entry = RecordFileExporter.class.getName().replace('.', '/') + ".class";
    Files.createDirectories(jar.getParent());
    try (InputStream classFile = RecordFileExporter.class.getClassLoader().getResourceAsStream(entry);
        OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file)) {
      if (classFile == null) {
        throw new IllegalStateException("no class file " + entry + " on the class path");
      }
      out.putNextEntry(new JarEntry(entry));
      classFile.transferTo(out);
      out.closeEntry();
    }
    return jar;
  }

  public StockZeebeCluster cluster() {
    return cluster;
  }

  public String indexPrefix() {
    return indexPrefix;
  }

  public int partitions() {
    return cluster.settings().partitions();
  }

  /** Every broker's record directory (each holds the partitions it has led). */
  public List<Path> recordDirectories() {
    return IntStream.range(0, cluster.settings().brokers()).mapToObj(this::recordDirectory).toList();
  }

  public Path recordDirectory(int nodeId) {
    return records.resolve(String.valueOf(nodeId));
  }

  /** Our exporter's acknowledged position per partition, as each partition's leader's Prometheus text shows it. */
  public Map<Integer, Long> acknowledged() {
    Map<Integer, Long> acknowledged = new HashMap<>();
    ClusterTopology.leaders(cluster.topology()).forEach((partition, node) -> {
      Long position = durablePositions(cluster.broker(node)).get(partition);
      if (position != null) {
        acknowledged.put(partition, position);
      }
    });
    return acknowledged;
  }

  /** Our exporter's acknowledged position per partition on {@code broker}; empty if it does not answer. */
  public static Map<Integer, Long> durablePositions(StockZeebeBroker broker) {
    try {
      return CrashSuite.durablePositions(broker.prometheus());
    } catch (IOException | IllegalStateException e) {
      return new HashMap<>(); // not answering right now (killed, or starting): nothing acknowledged as far as we see
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new HashMap<>();
    }
  }

  @Override
  public void close() {
    cluster.close();
  }
}
