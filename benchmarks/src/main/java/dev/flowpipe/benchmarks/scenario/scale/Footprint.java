package dev.flowpipe.benchmarks.scenario.scale;

import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Unit;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.benchmarks.fixture.FixtureProcess;
import dev.flowpipe.benchmarks.fixture.FixtureVariables;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.ValueCountQuery;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
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
import java.util.concurrent.Semaphore;
import org.awaitility.Awaitility;

/**
 * The {@code footprint} scenario: bytes per finished instance in a real node's read model. The fixture's process
 * (three service tasks, 15 short variables) runs {@code instances} times to completion on a real node; once every
 * instance is COMPLETED in the read model, the read model's index is refreshed and force-merged to one segment, and
 * its store size divided by the instances. Beside it, Operate's published 57 KB and the 3.2 KB.
 */
public final class Footprint {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "flowpipe";

  private Footprint() {}

  public static Report run(Path root, int instances) throws Exception {
    Report report = Report.describing("bytes per finished instance in a real node's read model (embedded OpenSearch),"
        + " the fixture's 3-task process with 15 short variables, after a refresh and a force-merge to one segment");
    Section body = report.body();
    body.figure("instances", instances);
    body.text("loadAverageAtStart", ScaleRun.loadAverage());
    // given 10 minutes to be ready: on a machine shared with other builds it has taken longer than the default 2
    try (NodeProcess node = NodeProcess.launch(root, ScratchDirectories.create("bench-footprint"),
            NodeProcess.Ports.free(), List.of("--flowpipe.store.embedded.start-timeout=10m"), null).awaitReady("/actuator/health/readiness", Duration.ofMinutes(10));
        ZeebeClient client = ScenarioNodes.client(node);
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.storeUrl()))) {
      client.newDeployResourceCommand().addProcessModel(FixtureProcess.model("footprint"), "footprint.bpmn")
          .send().join();
      List<JobWorker> workers = new ArrayList<>();
      for (String task : FixtureProcess.TASKS) {
        workers.add(client.newWorker().jobType(FixtureProcess.jobType(task))
            .handler((jobs, job) -> jobs.newCompleteCommand(job).send().join()).maxJobsActive(64).open());
      }
      long started = System.nanoTime();
      Semaphore inFlight = new Semaphore(100);
      for (long n = 0; n < instances; n++) {
        inFlight.acquire();
        client.newCreateInstanceCommand().bpmnProcessId("footprint").latestVersion()
            .variables(FixtureVariables.of(n)).send().whenComplete((r, e) -> inFlight.release());
      }
      String instanceIndex = ReadModelIndex.PROCESS_INSTANCE.indexName(PREFIX);
      Awaitility.await().atMost(Duration.ofMinutes(20)).pollInterval(Duration.ofSeconds(1)).until(() ->
          completed(store, instanceIndex) == instances);
      body.figure("secondsToRunAndExport", Math.round((System.nanoTime() - started) / 1e8) / 10.0, Unit.SECONDS);
      workers.forEach(JobWorker::close);
      String physical = ReadModelIndex.sharedIndexName(PREFIX);
      HttpClient http = HttpClient.newHttpClient();
      String url = node.storeUrl();
      send(http, url, "POST", "/" + physical + "/_refresh");
      JsonNode before = send(http, url, "GET", "/" + physical + "/_stats/store,docs,segments");
      send(http, url, "POST", "/" + physical + "/_forcemerge?max_num_segments=1");
      send(http, url, "POST", "/" + physical + "/_refresh");
      JsonNode after = send(http, url, "GET", "/" + physical + "/_stats/store,docs,segments");
      Section documents = body.section("documents");
      for (ReadModelIndex index : ReadModelIndex.entities()) {
        documents.figure(index.entity(), store.count(index.indexName(PREFIX)), Unit.NONE);
      }
      body.text("index", physical);
      body.section("beforeMerge", sizes(before, instances));
      body.section("afterMergeToOneSegment", sizes(after, instances));
      body.figure("operateBytesPerInstance", 57_000, Unit.BYTES);
      body.figure("targetBytesPerInstance", 3_200, Unit.BYTES);
      body.text("loadAverageAtEnd", ScaleRun.loadAverage());
    }
    return report;
  }

  private static long completed(SearchStore store, String index) {
    store.refresh(index);
    return store.countByValue(new ValueCountQuery(List.of(index), List.of(), "state", 10, Map.of())).stream()
        .filter(c -> "COMPLETED".equals(c.value())).mapToLong(ValueCountQuery.ValueCount::total).sum();
  }

  private static Section sizes(JsonNode stats, int instances) {
    JsonNode primaries = stats.path("_all").path("primaries");
    long bytes = primaries.path("store").path("size_in_bytes").asLong();
    return new Section().figure("storeBytes", bytes, Unit.BYTES)
        .figure("luceneDocuments", primaries.path("docs").path("count").asLong(), Unit.NONE)
        .figure("segments", primaries.path("segments").path("count").asLong(), Unit.NONE)
        .figure("bytesPerInstance", bytes / instances, Unit.BYTES);
  }

  private static JsonNode send(HttpClient http, String url, String method, String path) throws Exception {
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
