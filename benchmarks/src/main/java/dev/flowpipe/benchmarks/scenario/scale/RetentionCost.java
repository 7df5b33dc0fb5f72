package dev.flowpipe.benchmarks.scenario.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.benchmarks.fixture.FixtureSettings;
import dev.flowpipe.benchmarks.fixture.ReadModelFixture;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Unit;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.retention.RetentionSettings;
import dev.flowpipe.schema.retention.RetentionStatus;
import dev.flowpipe.schema.retention.RetentionSweep;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.testsupport.ScratchDirectories;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code retention-cost} scenario: our retention (period indices deleted whole, ADR 0011) against a
 * reindex-then-delete archiver (Operate's method) on the same data, in one store, one after the other. The fixture
 * writes the same finished instances twice: under one prefix routed to period indices by the exporter's own router,
 * under another into today's one shared index. Then our {@link RetentionSweep} runs once with its clock past every
 * period's expiry, and the {@link #archive lab archiver} copies every finished instance's documents into a dated index
 * by {@code _reindex} and deletes the originals by {@code _delete_by_query}, in batches of instances. For each: the
 * store process's CPU time ({@code _nodes/stats} process), the documents it indexed and deleted, the bytes its merges
 * wrote and its disk writes (where the node reports them), per instance removed.
 *
 * <p>The archiver is a stand-in written for this comparison, not Operate's code: Operate's archiver also reindexes
 * then deletes by query per batch of finished instances, into indices dated by end date.
 */
public final class RetentionCost {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String OURS = "ours";
  private static final String ARCHIVED = "arch";
  /** Finished instances per archiver batch (Operate archives in batches of instances, too). */
  private static final int BATCH = 500;

  private RetentionCost() {}

  public static Report run(Path root, long instances, int periods) throws Exception {
    Duration period = Duration.ofHours(1);
    Instant firstStart = Instant.parse("2026-10-01T00:00:00Z");
    FixtureSettings fixture = new FixtureSettings(instances, 1, 1, 2, 0, 0, 0, firstStart,
        period.multipliedBy(periods), 5_000);
    RetentionSettings retention = new RetentionSettings(period, period, Duration.ofMinutes(10));
    Report report = Report.describing("our retention (period indices deleted whole) against a lab "
        + "reindex-then-delete archiver (Operate's method) on the same fixture data, one embedded OpenSearch (1 GB "
        + "heap), store-side costs from _nodes/stats");
    Section body = report.body();
    body.section("fixture").figure("instances", instances, Unit.NONE).figure("documentsPerInstance", 27, Unit.NONE)
        .figure("partitions", 2, Unit.NONE).figure("periods", periods, Unit.NONE).text("period", period.toString())
        .text("keep", period.toString()).flag("allCompleted", true);
    body.text("loadAverageAtStart", ScaleRun.loadAverage());
    try (EmbeddedSearchStore node = EmbeddedSearchStore.start(ScratchDirectories.create("bench-retention-cost"),
        ScaleRun.patientStore(root));
        SearchStore store = SearchStoreConnector.connect(new StoreConnection(URI.create(node.url()), null, null, null,
            Duration.ofMinutes(5)))) {
      String url = node.url();
      HttpClient http = HttpClient.newHttpClient();
      ReadModelFixture.Result ours = new ReadModelFixture(store, url, OURS, fixture, retention, System.out::println)
          .write();
      ReadModelFixture.Result archived = new ReadModelFixture(store, url, ARCHIVED, fixture, System.out::println)
          .write();
      body.section("documentsWritten").figure(OURS, ours.documents(), Unit.NONE)
          .figure(ARCHIVED, archived.documents(), Unit.NONE);
      body.text("loadAverageAfterLoading", ScaleRun.loadAverage());
      send(http, url, "POST", "/_flush", null);

      // ours: one sweep with its clock past the expiry of every period
      Clock after = Clock.fixed(firstStart.plus(period.multipliedBy(periods + 3L)), ZoneOffset.UTC);
      long oursBefore = store.count(ReadModelIndex.PROCESS_INSTANCE.indexName(OURS));
      NodeStats beforeOurs = NodeStats.read(http, url);
      long started = System.nanoTime();
      RetentionStatus swept = new RetentionSweep(store, OURS, retention, after).sweep();
      send(http, url, "POST", "/_flush", null);
      double oursSeconds = (System.nanoTime() - started) / 1e9;
      NodeStats afterOurs = NodeStats.read(http, url);
      store.refresh(ReadModelIndex.PROCESS_INSTANCE.indexName(OURS));
      long oursRemoved = oursBefore - store.count(ReadModelIndex.PROCESS_INSTANCE.indexName(OURS));
      body.section("ours", afterOurs.minus(beforeOurs, oursRemoved, oursSeconds)
          .figure("periodIndicesDeletedWhole", swept.deleted().size(), Unit.NONE)
          .figure("periodsPinned", swept.pinned().size(), Unit.NONE)
          .figure("instancesPrunedByQuery", swept.instancesPruned(), Unit.NONE));

      // the archiver: reindex each batch of finished instances' documents into a dated index, then delete them
      String archive = ARCHIVED + "-archive-" + firstStart.toString().substring(0, 10);
      String source = ReadModelIndex.sharedIndexName(ARCHIVED);
      send(http, url, "PUT", "/" + archive, JSON.writeValueAsString(Map.of(
          "settings", Map.of("number_of_shards", 1, "number_of_replicas", 0),
          "mappings", send(http, url, "GET", "/" + source + "/_mapping", null).path(source).path("mappings"))));
      send(http, url, "POST", "/_flush", null);
      long archivedBefore = store.count(ReadModelIndex.PROCESS_INSTANCE.indexName(ARCHIVED));
      NodeStats beforeArchiver = NodeStats.read(http, url);
      started = System.nanoTime();
      int batches = archive(http, url, source, archive);
      send(http, url, "POST", "/_flush", null);
      double archiverSeconds = (System.nanoTime() - started) / 1e9;
      NodeStats afterArchiver = NodeStats.read(http, url);
      store.refresh(ReadModelIndex.PROCESS_INSTANCE.indexName(ARCHIVED));
      long archivedRemoved = archivedBefore - store.count(ReadModelIndex.PROCESS_INSTANCE.indexName(ARCHIVED));
      body.section("reindexThenDeleteArchiver", afterArchiver.minus(beforeArchiver, archivedRemoved, archiverSeconds)
          .figure("batches", batches, Unit.NONE)
          .figure("archiveIndexStoreBytes", send(http, url, "GET", "/" + archive + "/_stats/store", null)
              .path("_all").path("primaries").path("store").path("size_in_bytes").asLong(), Unit.BYTES));
      body.text("loadAverageAtEnd", ScaleRun.loadAverage());
    }
    return report;
  }

  /** Archives every finished instance of {@code source} into {@code archive}; returns the batches sent. */
  private static int archive(HttpClient http, String url, String source, String archive) throws Exception {
    String instances = ReadModelIndex.PROCESS_INSTANCE.indexName(ARCHIVED);
    int batches = 0;
    while (true) {
      send(http, url, "POST", "/" + instances + "/_refresh", null);
      JsonNode page = send(http, url, "POST", "/" + instances + "/_search", JSON.writeValueAsString(Map.of(
          "size", BATCH, "_source", List.of("key"), "sort", List.of(Map.of("key", "asc")),
          "query", Map.of("terms", Map.of("state", List.of("COMPLETED", "CANCELED"))))));
      List<Object> keys = new ArrayList<>();
      for (JsonNode hit : page.path("hits").path("hits")) {
        keys.add(JSON.convertValue(hit.path("_source").path("key"), Object.class));
      }
      if (keys.isEmpty()) {
        return batches;
      }
      String query = JSON.writeValueAsString(Map.of("bool", Map.of("minimum_should_match", 1, "should", List.of(
          Map.of("terms", Map.of("processInstanceKey", keys)), Map.of("terms", Map.of("key", keys))))));
      send(http, url, "POST", "/_reindex?wait_for_completion=true&slices=1",
          "{\"source\":{\"index\":\"" + source + "\",\"size\":5000,\"query\":" + query + "},\"dest\":{\"index\":\""
              + archive + "\"}}");
      send(http, url, "POST", "/" + source + "/_delete_by_query?conflicts=proceed&wait_for_completion=true",
          "{\"query\":" + query + "}");
      batches++;
    }
  }

  /** The store node's counters that the two methods are compared on. */
  record NodeStats(long cpuMillis, long diskWriteKilobytes, long indexed, long deleted, long mergedBytes,
      long storeBytes) {

    static NodeStats read(HttpClient http, String url) throws Exception {
      JsonNode node = send(http, url, "GET", "/_nodes/stats/process,fs,indices", null).path("nodes").elements()
          .next();
      JsonNode indices = node.path("indices");
      return new NodeStats(node.path("process").path("cpu").path("total_in_millis").asLong(),
          node.path("fs").path("io_stats").path("total").path("write_kilobytes").asLong(-1),
          indices.path("indexing").path("index_total").asLong(), indices.path("indexing").path("delete_total").asLong(),
          indices.path("merges").path("total_size_in_bytes").asLong(), indices.path("store").path("size_in_bytes")
              .asLong());
    }

    /** The counters' change since {@code before}, whole and per instance removed. */
    Section minus(NodeStats before, long instancesRemoved, double seconds) {
      boolean diskReported = diskWriteKilobytes >= 0 && before.diskWriteKilobytes >= 0;
      Section delta = new Section().figure("instancesRemoved", instancesRemoved, Unit.NONE)
          .figure("seconds", Math.round(seconds * 10) / 10.0, Unit.SECONDS)
          .figure("storeCpuSeconds", (cpuMillis - before.cpuMillis) / 1000.0, Unit.SECONDS)
          .figure("documentsIndexed", indexed - before.indexed, Unit.NONE)
          .figure("documentsDeletedByIndexing", deleted - before.deleted, Unit.NONE)
          .figure("mergedBytes", mergedBytes - before.mergedBytes, Unit.BYTES);
      if (diskReported) {
        delta.figure("diskWriteKilobytes", diskWriteKilobytes - before.diskWriteKilobytes, Unit.KILOBYTES);
      } else {
        delta.text("diskWriteKilobytes", "not reported");
      }
      delta.figure("storeBytesChange", storeBytes - before.storeBytes, Unit.BYTES);
      if (instancesRemoved > 0) {
        delta.figure("storeCpuMillisPerInstance", Math.round((cpuMillis - before.cpuMillis) * 1000.0
            / instancesRemoved) / 1000.0, Unit.MILLIS);
        delta.figure("documentsIndexedPerInstance", Math.round((indexed - before.indexed) * 100.0
            / instancesRemoved) / 100.0, Unit.NONE);
        delta.figure("mergedBytesPerInstance", (mergedBytes - before.mergedBytes) / instancesRemoved, Unit.BYTES);
        if (diskReported) {
          delta.figure("diskWriteBytesPerInstance", (diskWriteKilobytes - before.diskWriteKilobytes) * 1024
              / instancesRemoved, Unit.BYTES);
        }
      }
      return delta;
    }
  }

  private static JsonNode send(HttpClient http, String url, String method, String path, String json)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofMinutes(30));
    if (json == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
    }
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": "
          + response.body());
    }
    return JSON.readTree(response.body());
  }
}
