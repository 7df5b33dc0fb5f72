package dev.flowpipe.benchmarks.scenario.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.benchmarks.fixture.FixtureProcess;
import dev.flowpipe.benchmarks.fixture.FixtureVariables;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Unit;
import dev.flowpipe.benchmarks.scenario.baseline.Baseline;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.ValueCountQuery;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.CommandOutcome;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.worker.JobWorker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.awaitility.Awaitility;

/**
 * The {@code footprint} scenario: bytes per finished instance in a real node's read model. The fixture's process
 * (three service tasks, 15 short variables) runs {@code instances} times to completion on a real node; once every
 * instance is COMPLETED in the read model, the read model's index is refreshed and force-merged to one segment, and
 * its store size divided by the instances. In the same run, on the same node and store, Camunda's stock OpenSearch
 * exporter (8.6.0, from the distribution, at its defaults) writes the raw records of the same workload under its own
 * prefix; its indices are measured the same way. Beside both, Operate's published 57 KB and the 3.2 KB.
 */
public final class Footprint {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "flowpipe";
  private static final String STOCK_PREFIX = "zeebe-record";

  private Footprint() {}

  public static Report run(Path root, int instances) throws Exception {
    Report report = Report.describing("bytes per finished instance in a real node's read model (embedded "
        + "OpenSearch), the fixture's 3-task process with 15 short variables, after a refresh and a force-merge to "
        + "one segment");
    Section body = report.body();
    body.figure("instances", instances, Unit.NONE);
    body.text("loadAverageAtStart", ScaleRun.loadAverage());
    // given 10 minutes to be ready: on a machine shared with other builds it has taken longer than the default 2
    // flow control off: this run measures bytes, not rates, and every instance must complete (as baseline does)
    List<String> arguments = new ArrayList<>(List.of("--flowpipe.store.embedded.start-timeout=10m",
        "--flowpipe.flow-control.enabled=false"));
    arguments.addAll(Baseline.stockExporterArguments("http://127.0.0.1:${flowpipe.store.embedded.http-port}",
        STOCK_PREFIX));
    try (NodeProcess node = NodeProcess.launch(root, ScratchDirectories.create("bench-footprint"),
            NodeProcess.Ports.free(), arguments, Baseline.stockExporterClasspath(root))
            .awaitReady("/actuator/health/readiness", Duration.ofMinutes(10));
        ZeebeClient client = ScenarioNodes.client(node);
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.storeUrl()))) {
      client.newDeployResourceCommand().addProcessModel(FixtureProcess.model("footprint"), "footprint.bpmn")
          .send().join();
      List<JobWorker> workers = new ArrayList<>();
      for (String task : FixtureProcess.TASKS) {
        // a refused completion is sent again; any other failure leaves the job to time out and come back, so no job
        // loses a retry and no instance ends in an incident on a loaded machine
        workers.add(client.newWorker().jobType(FixtureProcess.jobType(task)).handler((jobs, job) -> {
          try {
            CommandOutcome.untilAccepted(() -> jobs.newCompleteCommand(job).send().join());
          } catch (RuntimeException e) {
            System.out.println("footprint: job " + job.getKey() + " left to time out: " + CommandOutcome.kind(e));
          }
        }).timeout(Duration.ofSeconds(30)).maxJobsActive(64).open());
      }
      long started = System.nanoTime();
      ExecutorService creators = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> created = new ArrayList<>();
        for (long n = 0; n < instances; n++) {
          long number = n;
          created.add(creators.submit(() -> CommandOutcome.untilAccepted(() -> client.newCreateInstanceCommand()
              .bpmnProcessId("footprint").latestVersion().variables(FixtureVariables.of(number)).send().join())));
        }
        for (Future<?> future : created) {
          future.get();
        }
      } finally {
        creators.shutdownNow();
      }
      String instanceIndex = ReadModelIndex.PROCESS_INSTANCE.indexName(PREFIX);
      Awaitility.await().atMost(Duration.ofMinutes(20)).pollInterval(Duration.ofSeconds(1)).until(() ->
          completed(store, instanceIndex) == instances);
      body.figure("secondsToRunAndExport", Math.round((System.nanoTime() - started) / 1e8) / 10.0, Unit.SECONDS);
      workers.forEach(JobWorker::close);
      HttpClient http = HttpClient.newHttpClient();
      String url = node.storeUrl();
      // the stock exporter flushes on its own delay (5 s by default): every instance's completion among its records
      Awaitility.await().atMost(Duration.ofMinutes(20)).pollInterval(Duration.ofSeconds(2)).until(() ->
          stockCompletedInstances(http, url) == instances);
      body.figure("secondsToStockExport", Math.round((System.nanoTime() - started) / 1e8) / 10.0, Unit.SECONDS);
      String physical = ReadModelIndex.sharedIndexName(PREFIX);
      Section ours = merged(http, url, physical, instances);
      Section documents = ours.section("documentsByEntity");
      for (ReadModelIndex index : ReadModelIndex.entities()) {
        documents.figure(index.entity(), store.count(index.indexName(PREFIX)), Unit.NONE);
      }
      body.text("index", physical);
      body.section("ours", ours);
      Section stock = merged(http, url, STOCK_PREFIX + "*", instances);
      stock.section("indices", indices(send(http, url, "GET", "/_cat/indices/" + STOCK_PREFIX
          + "*?format=json&bytes=b&s=index&h=index,docs.count,pri.store.size")));
      body.section("stockExporterRawRecords", stock);
      body.figure("operateBytesPerInstance", 57_000, Unit.BYTES);
      body.figure("targetBytesPerInstance", 3_200, Unit.BYTES);
      body.text("loadAverageAtEnd", ScaleRun.loadAverage());
    }
    return report;
  }

  /** Each index's documents and primary store bytes, from the rows of {@code _cat/indices}. */
  static Section indices(JsonNode catRows) {
    Section byIndex = new Section();
    for (JsonNode row : catRows) {
      byIndex.section(row.path("index").asText())
          .figure("storeBytes", row.path("pri.store.size").asLong(), Unit.BYTES)
          .figure("documents", row.path("docs.count").asLong(), Unit.NONE);
    }
    return byIndex;
  }

  private static long completed(SearchStore store, String index) {
    store.refresh(index);
    return store.countByValue(new ValueCountQuery(List.of(index), List.of(), "state", 10, Map.of())).stream()
        .filter(c -> "COMPLETED".equals(c.value())).mapToLong(ValueCountQuery.ValueCount::total).sum();
  }

  /** Instances whose process completed among the stock exporter's raw process-instance records. */
  private static long stockCompletedInstances(HttpClient http, String url) throws Exception {
    send(http, url, "POST", "/" + STOCK_PREFIX + "*/_refresh");
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url + "/" + STOCK_PREFIX
            + "_process-instance*/_count")).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"query\":{\"bool\":{\"filter\":["
            + "{\"term\":{\"intent\":\"ELEMENT_COMPLETED\"}},"
            + "{\"term\":{\"value.bpmnElementType\":\"PROCESS\"}}]}}}"))
        .timeout(Duration.ofMinutes(1)).build(), HttpResponse.BodyHandlers.ofString());
    return response.statusCode() == 200 ? JSON.readTree(response.body()).path("count").asLong() : -1;
  }

  /**
   * Refreshes the indices, reads their sizes, force-merges them to one segment each and reads them again; then, while
   * the merged segments still hold deleted documents, merges again every 10 s (up to 5 minutes) and reads them a third
   * time. Each rewrite of a document leaves its old version soft-deleted, and the store keeps soft-deleted versions
   * through a merge while its retention lease (advanced on a background sync) still covers them: right after the
   * writes, a merge keeps most old versions (on 2026-11-27 the merged index of 2,000 instances was 12.5 MB; settled,
   * the same data is about half). {@code settled} is what a finished instance costs at rest.
   */
  static Section merged(HttpClient http, String url, String indices, int instances) throws Exception {
    send(http, url, "POST", "/" + indices + "/_refresh");
    JsonNode before = send(http, url, "GET", "/" + indices + "/_stats/store,docs,segments");
    Segments liveBefore = segments(http, url, indices);
    mergeToOneSegment(http, url, indices);
    JsonNode after = send(http, url, "GET", "/" + indices + "/_stats/store,docs,segments");
    Segments liveAfter = segments(http, url, indices);
    Section merged = new Section().section("beforeMerge", sizes(before, liveBefore, instances))
        .section("afterMergeToOneSegment", sizes(after, liveAfter, instances));
    long started = System.nanoTime();
    Awaitility.await().atMost(Duration.ofMinutes(5)).pollDelay(Duration.ZERO).pollInterval(Duration.ofSeconds(10))
        .until(() -> {
          mergeToOneSegment(http, url, indices);
          return segments(http, url, indices).deletedDocuments() == 0;
        });
    JsonNode settled = send(http, url, "GET", "/" + indices + "/_stats/store,docs,segments");
    return merged.section("settled", sizes(settled, segments(http, url, indices), instances)
        .figure("secondsUntilNoDeletedDocument", Math.round((System.nanoTime() - started) / 1e8) / 10.0, Unit.SECONDS));
  }

  private static void mergeToOneSegment(HttpClient http, String url, String indices) throws Exception {
    send(http, url, "POST", "/" + indices + "/_forcemerge?max_num_segments=1");
    send(http, url, "POST", "/" + indices + "/_flush");
    send(http, url, "POST", "/" + indices + "/_refresh");
  }

  /** The primaries' live segments: their bytes and the deleted documents they still hold. */
  record Segments(long bytes, long deletedDocuments) {}

  /**
   * The primaries' live segments ({@code _cat/segments}): the store size of {@code _stats} also counts files of
   * segments merged away that a reader or commit still holds (right after a force-merge, twice the index).
   */
  private static Segments segments(HttpClient http, String url, String indices) throws Exception {
    long bytes = 0;
    long deleted = 0;
    for (JsonNode segment : send(http, url, "GET", "/_cat/segments/" + indices
        + "?format=json&bytes=b&h=prirep,size,docs.deleted")) {
      if ("p".equals(segment.path("prirep").asText())) {
        bytes += segment.path("size").asLong();
        deleted += segment.path("docs.deleted").asLong();
      }
    }
    return new Segments(bytes, deleted);
  }

  /** The primaries' sizes from an {@code _stats} answer, whole and per instance. */
  static Section sizes(JsonNode stats, Segments live, int instances) {
    JsonNode primaries = stats.path("_all").path("primaries");
    long bytes = primaries.path("store").path("size_in_bytes").asLong();
    long liveSegmentBytes = live.bytes();
    return new Section().figure("storeBytes", bytes, Unit.BYTES)
        .figure("liveSegmentBytes", liveSegmentBytes, Unit.BYTES)
        .figure("deletedDocumentsHeld", live.deletedDocuments(), Unit.NONE)
        .figure("luceneDocuments", primaries.path("docs").path("count").asLong(), Unit.NONE)
        .figure("segments", primaries.path("segments").path("count").asLong(), Unit.NONE)
        .figure("bytesPerInstance", bytes / instances, Unit.BYTES)
        .figure("liveSegmentBytesPerInstance", liveSegmentBytes / instances, Unit.BYTES);
  }

  static JsonNode send(HttpClient http, String url, String method, String path) throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url + path))
        .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofMinutes(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": "
          + response.body());
    }
    return JSON.readTree(response.body());
  }
}
