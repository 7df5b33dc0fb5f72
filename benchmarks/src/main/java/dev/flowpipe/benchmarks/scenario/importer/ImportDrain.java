package dev.flowpipe.benchmarks.scenario.importer;

import dev.flowpipe.benchmarks.report.ReportWriter;
import dev.flowpipe.importer.PartitionImport;
import dev.flowpipe.importer.source.RawRecordIndices;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.benchmarks.report.HtmlReport;
import dev.flowpipe.benchmarks.load.SteadyLoad;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import dev.flowpipe.benchmarks.scenario.overhead.CpuCost;
import dev.flowpipe.benchmarks.scenario.baseline.Baseline;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.protocol.record.ValueType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The importer's drain rate: a backlog of raw records in the stock exporter's format, imported from scratch by the
 * standalone importer ({@code bin/flowpipe-importer --until-caught-up}, a process of its own).
 *
 * <p>The backlog: a real node with Camunda's stock exporter 8.6.0 (and not ours) runs the load model at 50 instances/s
 * for {@code recordSeconds} into a store this JVM starts, which gives the ingest rate of that load in raw records per
 * second and a recording of what the stock exporter wrote. That recording is then replayed into the same indices until
 * the backlog holds the records asked for: each copy with its positions, sequences (per partition and value type),
 * record keys (every field holding one of the recording's record keys) and timestamps moved past the previous copy's,
 * so the importer sees one long log of the same shapes. Then the importer runs, and its wall time, CPU time and
 * largest resident set are measured.
 */
public final class ImportDrain {

  private static final int LOAD_RATE = 50;
  private static final int PARTITIONS = 2;
  private static final String PREFIX = "zeebe-record";
  private static final String IMPORTED = "imported";
  private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);
  private static final Pattern CAUGHT_UP = Pattern.compile("caught up: .*\\((\\d+) records in ([\\d.]+) s");
  private static final long PARTITION_BITS = 51;

  private ImportDrain() {}

  /** @param importerArguments further {@code --flowpipe.importer.*} arguments for the importer (e.g. page-size) */
  /**
   * The {@code import-drain} report: the recorded load's ingest rate, the backlog, the importer's drain of it, and
   * the ratio of the two rates.
   */
  public record Report(String scenario, Ingest ingest, long backlogRecords, int recordedRecords, Drain drain,
      double drainOverIngest, long importedProcessInstances) {}

  /** The real node's run: a steady load recorded by the stock exporter, and what the importer must read per second. */
  public record Ingest(int loadInstancesPerSecond, int loadSeconds, long instancesCompleted, long rawRecords,
      double rawRecordsPerInstance, long recordsPerSecond) {}

  /** The importer's run over the backlog, from scratch until caught up, and what it and the store spent. */
  public record Drain(long recordsImported, double importerSeconds, double processSeconds, long recordsPerSecond,
      double minutesToCatchUp, double importerCpuSeconds, double importerCores, long importerMaxRssMb,
      double storeCpuSeconds, double storeCores) {}

  public static Report run(Path root, long records, int recordSeconds, List<String> importerArguments)
      throws Exception {
    Path work = ScratchDirectories.create("bench-import-drain");
    String scenario = "import-drain: " + records + " raw records asked for; recorded from a real node (stock "
        + "exporter 8.6.0, " + PARTITIONS + " partitions, load model at " + LOAD_RATE + " instances/s for "
        + recordSeconds + " s) and replayed with new keys, positions, sequences and timestamps; imported from scratch"
        + " by bin/flowpipe-importer --until-caught-up "
        + (importerArguments.isEmpty() ? "(its defaults: page-size 1000, bulk-size 1000)" : importerArguments);
    Report report;
    try (EmbeddedSearchStore opensearch = EmbeddedSearchStore.start(work.resolve("store"),
            EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(opensearch.url()))) {
      RawRecordIndices indices = new RawRecordIndices(PREFIX);
      Ingest ingest = record(root, work, opensearch.url(), store, indices, recordSeconds);
      List<Map<String, Object>> recording = readAll(store, indices);
      long started = System.nanoTime();
      long backlog = replay(store, indices, recording, records);
      System.out.printf(Locale.ROOT, "backlog: %d raw records (%.0f s to write)%n", backlog,
          (System.nanoTime() - started) / 1e9);
      Drain drain = drain(root, work, opensearch, importerArguments);
      double drainOverIngest = Math.round((double) drain.recordsPerSecond() / ingest.recordsPerSecond() * 10) / 10.0;
      store.refresh(ReadModelIndex.PROCESS_INSTANCE.indexName(IMPORTED));
      report = new Report(scenario, ingest, backlog, recording.size(), drain, drainOverIngest,
          store.count(ReadModelIndex.PROCESS_INSTANCE.indexName(IMPORTED)));
    }
    html(ReportWriter.tree(dev.flowpipe.benchmarks.report.Report.of(report)), root.resolve("benchmarks/results/import-drain.html"));
    return report;
  }

  /** The real node's run: the stock exporter's records of a steady load, and their rate. */
  private static Ingest record(Path root, Path work, String url, SearchStore store,
      RawRecordIndices indices, int seconds) throws Exception {
    List<String> args = new ArrayList<>(Baseline.stockExporterArguments(url, PREFIX));
    args.addAll(List.of(Baseline.STOCK_ARGUMENT + "args.bulk.delay=1",
        // job-batch records carry activations (worker, deadline); the importer needs them, the stock default omits them
        Baseline.STOCK_ARGUMENT + "args.index.jobBatch=true",
        "--flowpipe.store.url=" + url, "--flowpipe.exporter.enabled=false", "--flowpipe.flow-control.enabled=false",
        "--flowpipe.broker.partitions-count=" + PARTITIONS));
    Ingest ingest;
    try (NodeProcess node = NodeProcess.start(root, work.resolve("node"), args, Baseline.stockExporterClasspath(root));
        ZeebeClient client = ScenarioNodes.client(node)) {
      System.out.printf("recording: %d instances/s for %d s on a node with the stock exporter%n", LOAD_RATE, seconds);
      long now;
      try (SteadyLoad load = SteadyLoad.start(client, LOAD_RATE)) {
        TimeUnit.SECONDS.sleep(seconds);
        load.stopCreating();
        now = settledCount(store, indices);
      }
      long instances = completedInstances(store, indices);
      double perInstance = (double) now / Math.max(1, instances);
      // what the importer reads per second while such a load runs: records per instance times the instance rate
      ingest = new Ingest(LOAD_RATE, seconds, instances, now, Math.round(perInstance * 10) / 10.0,
          Math.round(perInstance * LOAD_RATE));
    }
    System.out.println("ingest: " + ingest);
    return ingest;
  }

  /**
   * The raw records once the stock exporter has written the last of them: it flushes every second, so settled when a
   * few seconds add nothing. A loaded machine's stock exporter may not have written its first bulk yet: nothing
   * counts as settled before something is there (up to 2 minutes).
   */
  private static long settledCount(SearchStore store, RawRecordIndices indices) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    long previous = -1;
    long now = count(store, indices);
    while (now != previous || now == 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("import-drain: the stock exporter wrote " + now + " raw records and did not "
            + "settle within 2 minutes of the recording");
      }
      TimeUnit.SECONDS.sleep(3);
      previous = now;
      now = count(store, indices);
    }
    return now;
  }

  private static long count(SearchStore store, RawRecordIndices indices) {
    long total = 0;
    for (ValueType type : PartitionImport.VALUE_TYPES) {
      store.refresh(indices.pattern(type));
      total += store.search(new SearchQuery(List.of(indices.pattern(type)), List.of(), List.of(), 0, 0, List.of(),
          List.of())).total();
    }
    return total;
  }

  /** Completed process instances: ELEMENT_COMPLETED records of a PROCESS element. */
  private static long completedInstances(SearchStore store, RawRecordIndices indices) {
    return store.search(new SearchQuery(List.of(indices.pattern(ValueType.PROCESS_INSTANCE)),
        List.of(new Criterion.Equals("intent", "ELEMENT_COMPLETED"),
            new Criterion.Equals("value.bpmnElementType", "PROCESS")), List.of(), 0, 0, List.of(), List.of())).total();
  }

  /** Every raw record of the value types the importer reads, in sequence order per type. */
  private static List<Map<String, Object>> readAll(SearchStore store, RawRecordIndices indices) {
    List<Map<String, Object>> all = new ArrayList<>();
    for (ValueType type : PartitionImport.VALUE_TYPES) {
      long after = -1;
      while (true) {
        SearchHits hits = store.search(new SearchQuery(List.of(indices.pattern(type)),
            List.of(new Criterion.Range("sequence", after, null, null, null)),
            List.of(SortField.ascending("sequence")), 0, 5000, List.of(), List.of()));
        if (hits.hits().isEmpty()) {
          break;
        }
        for (SearchHits.Hit hit : hits.hits()) {
          all.add(hit.source());
          after = ((Number) hit.source().get("sequence")).longValue();
        }
      }
    }
    return all;
  }

  /**
   * Writes copies of the recording after it until the backlog holds {@code target} records; returns how many it holds.
   * The process records (deployments) are not copied: the copies are more instances of the same processes.
   */
  private static long replay(SearchStore store, RawRecordIndices indices, List<Map<String, Object>> recording,
      long target) {
    Map<Integer, Long> positionSpan = new HashMap<>();
    Map<Integer, Long> keySpan = new HashMap<>();
    Map<String, Long> counterSpan = new HashMap<>();
    Set<Long> recordKeys = new HashSet<>();
    long firstTime = Long.MAX_VALUE;
    long lastTime = 0;
    for (Map<String, Object> raw : recording) {
      int partition = number(raw, "partitionId").intValue();
      positionSpan.merge(partition, number(raw, "position").longValue(), Math::max);
      counterSpan.merge(partition + "/" + raw.get("valueType"),
          number(raw, "sequence").longValue() & ((1L << PARTITION_BITS) - 1), Math::max);
      long key = number(raw, "key").longValue();
      if (!"PROCESS".equals(raw.get("valueType")) && key > 0) {
        recordKeys.add(key);
        keySpan.merge(partition, key & ((1L << PARTITION_BITS) - 1), Math::max);
      }
      firstTime = Math.min(firstTime, number(raw, "timestamp").longValue());
      lastTime = Math.max(lastTime, number(raw, "timestamp").longValue());
    }
    long timeSpan = lastTime - firstTime + 1;
    long total = recording.size();
    List<DocumentWrite> batch = new ArrayList<>();
    for (int copy = 1; total < target; copy++) {
      for (Map<String, Object> raw : recording) {
        if ("PROCESS".equals(raw.get("valueType")) || total >= target) {
          continue;
        }
        int partition = number(raw, "partitionId").intValue();
        long positionShift = copy * (positionSpan.get(partition) + 1);
        long keyShift = copy * (keySpan.getOrDefault(partition, 0L) + 1);
        @SuppressWarnings("unchecked")
        Map<String, Object> moved = (Map<String, Object>) moveKeys(raw, recordKeys, keyShift);
        long position = number(raw, "position").longValue() + positionShift;
        moved.put("position", position);
        long source = number(raw, "sourceRecordPosition").longValue();
        moved.put("sourceRecordPosition", source < 0 ? source : source + positionShift);
        moved.put("sequence", number(raw, "sequence").longValue()
            + copy * counterSpan.get(partition + "/" + raw.get("valueType")));
        long timestamp = number(raw, "timestamp").longValue() + copy * timeSpan;
        moved.put("timestamp", timestamp);
        ValueType type = ValueType.valueOf((String) raw.get("valueType"));
        batch.add(new DocumentWrite(indices.dayIndex(type, String.valueOf(raw.get("brokerVersion")),
            DAY.format(Instant.ofEpochMilli(timestamp))), partition + "-" + position, position, moved));
        total++;
        if (batch.size() == 2000) {
          write(store, batch);
        }
      }
      if (copy % 10 == 0) {
        System.out.printf("  replayed %d copies: %d records%n", copy, total);
      }
    }
    write(store, batch);
    store.refresh(PREFIX + "_*");
    return total;
  }

  private static void write(SearchStore store, List<DocumentWrite> batch) {
    if (batch.isEmpty()) {
      return;
    }
    var outcome = store.bulk(batch);
    if (!outcome.allApplied()) {
      throw new IllegalStateException("backlog not written: " + outcome.failures());
    }
    batch.clear();
  }

  /** A deep copy in which every number that is one of the recording's record keys is moved by {@code shift}. */
  private static Object moveKeys(Object value, Set<Long> keys, long shift) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      map.forEach((k, v) -> copy.put((String) k, moveKeys(v, keys, shift)));
      return copy;
    }
    if (value instanceof List<?> list) {
      return list.stream().map(v -> moveKeys(v, keys, shift)).toList();
    }
    if (value instanceof Number n && (value instanceof Long || value instanceof Integer) && keys.contains(n.longValue())) {
      return n.longValue() + shift;
    }
    return value;
  }

  private static Number number(Map<String, Object> raw, String field) {
    return (Number) raw.get(field);
  }

  /** The standalone importer from scratch until caught up: wall time, CPU time, largest resident set. */
  private static Drain drain(Path root, Path work, EmbeddedSearchStore opensearch,
      List<String> importerArguments) throws Exception {
    Path log = work.resolve("importer.log");
    List<String> command = new ArrayList<>(List.of(root.resolve("bin/flowpipe-importer").toString(),
        "--flowpipe.importer.source-url=" + opensearch.url(), "--flowpipe.importer.source-prefix=" + PREFIX,
        "--flowpipe.importer.index-prefix=" + IMPORTED, "--until-caught-up"));
    command.addAll(importerArguments);
    Process importer = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    ProcessHandle store = ProcessHandle.of(opensearch.pid()).orElseThrow();
    long storeCpuBefore = CpuCost.cpuNanos(store);
    long start = System.nanoTime();
    long maxRssKb = 0;
    long cpuNanos = 0;
    System.out.println("importing (importer pid " + importer.pid() + ", log " + log + ")");
    while (!importer.waitFor(500, TimeUnit.MILLISECONDS)) {
      maxRssKb = Math.max(maxRssKb, rssKb(importer.pid()));
      cpuNanos = importer.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(cpuNanos);
    }
    double wallSeconds = (System.nanoTime() - start) / 1e9;
    double storeCpuSeconds = (CpuCost.cpuNanos(store) - storeCpuBefore) / 1e9;
    String output = Files.readString(log);
    if (importer.exitValue() != 0) {
      throw new IllegalStateException("the importer exited " + importer.exitValue() + ":\n" + output);
    }
    Matcher caughtUp = CAUGHT_UP.matcher(output);
    if (!caughtUp.find()) {
      throw new IllegalStateException("no 'caught up' line in the importer's output:\n" + output);
    }
    long imported = Long.parseLong(caughtUp.group(1));
    double importSeconds = Double.parseDouble(caughtUp.group(2));
    Drain drain = new Drain(imported, importSeconds, Math.round(wallSeconds * 10) / 10.0,
        Math.round(imported / importSeconds), Math.round(wallSeconds / 60 * 100) / 100.0,
        Math.round(cpuNanos / 1e8) / 10.0, Math.round(cpuNanos / 1e9 / wallSeconds * 100) / 100.0, maxRssKb / 1024,
        Math.round(storeCpuSeconds * 10) / 10.0, Math.round(storeCpuSeconds / wallSeconds * 100) / 100.0);
    System.out.println("drain: " + drain);
    return drain;
  }

  private static long rssKb(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | NumberFormatException e) {
      // the process has just exited
    }
    return 0;
  }

  @SuppressWarnings("unchecked")
  private static void html(Map<String, Object> report, Path file) throws IOException {
    HtmlReport html = new HtmlReport("Import drain: raw records of the stock exporter into the read model");
    html.paragraph((String) report.get("scenario"));
    Map<String, Object> ingest = (Map<String, Object>) report.get("ingest");
    Map<String, Object> drain = (Map<String, Object>) report.get("drain");
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("backlog (raw records)", String.valueOf(report.get("backlogRecords"))));
    drain.forEach((k, v) -> rows.add(List.of(k, String.valueOf(v))));
    ingest.forEach((k, v) -> rows.add(List.of("ingest " + k, String.valueOf(v))));
    rows.add(List.of("drain rate / ingest rate", String.valueOf(report.get("drainOverIngest"))));
    rows.add(List.of("imported process instances", String.valueOf(report.get("importedProcessInstances"))));
    html.table(List.of("figure", "value"), rows);
    html.write(file);
  }
}
