package dev.flowpipe.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.DeploymentEvent;
import io.camunda.zeebe.client.api.worker.JobWorker;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The whole path on one node: deploy with the official client, run instances to completion with a job worker, find
 * the definition and the completed instances in the store; then stop and start the node on the same data.
 */
// it reads the broker's metrics, which Zeebe keeps in the JVM's one Prometheus registry: a broker of another class closing beside it removes their series
@Isolated
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NodeEndToEndTest {

  private static final String PREFIX = "flowpipe";
  private static final BpmnModelInstance ORDER_PROCESS =
      Bpmn.createExecutableProcess("order-process")
          .name("Order process")
          .startEvent()
          .serviceTask("ship", task -> task.zeebeJobType("ship"))
          .endEvent()
          .done();

  @TempDir static Path data;

  private TestNode node;
  private final Set<Long> firstRunInstances = ConcurrentHashMap.newKeySet();
  private long definitionKey;

  @BeforeAll
  void startNode() {
    // the flow-control tests below change settings at runtime: an actuator write, off without authentication unless
    // switched on (RouteRoleMatrixTest shows both ways)
    node = new TestNode(data).with("flowpipe.webapp.security.actuator-writes-enabled", true).start();
  }

  @AfterAll
  void stopNode() {
    node.close();
  }

  @Test
  @Order(1)
  void deployedProcessAndCompletedInstancesReachTheStore() throws Exception {
    try (ZeebeClient client = node.client()) {
      DeploymentEvent deployment =
          client.newDeployResourceCommand().addProcessModel(ORDER_PROCESS, "order.bpmn").send().join();
      definitionKey = deployment.getProcesses().getFirst().getProcessDefinitionKey();

      for (int i = 0; i < 5; i++) {
        firstRunInstances.add(
            client.newCreateInstanceCommand().bpmnProcessId("order-process").latestVersion().send().join()
                .getProcessInstanceKey());
      }
      try (JobWorker worker = completeJobs(client)) {
        awaitCompleted(node.store().client(), firstRunInstances);
      }
    }

    SearchStore store = node.store().client();
    Map<String, Object> definition =
        store.get(ReadModelIndex.PROCESS_DEFINITION.indexName(PREFIX), String.valueOf(definitionKey)).orElseThrow();
    assertThat(definition)
        .containsEntry("bpmnProcessId", "order-process")
        .containsEntry("name", "Order process")
        .containsEntry("version", 1)
        .containsEntry("resourceName", "order.bpmn");
    assertThat((String) definition.get("bpmnXml")).contains("order-process").contains("taskDefinition");

    for (long key : firstRunInstances) {
      Map<String, Object> instance =
          store.get(ReadModelIndex.PROCESS_INSTANCE.indexName(PREFIX), String.valueOf(key)).orElseThrow();
      assertThat(instance)
          .containsEntry("state", "COMPLETED")
          .containsEntry("bpmnProcessId", "order-process")
          .containsEntry("processDefinitionKey", definitionKey);
      assertThat(instance.get("startDate")).isNotNull();
      assertThat(instance.get("endDate")).isNotNull();
    }
  }

  @Test
  @Order(2)
  void actuatorHealthReportsBrokerPartitionsAndStoreUp() throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/actuator/health/readiness"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).contains("\"status\":\"UP\"").contains("\"broker\"").contains("\"searchStore\"");
  }

  @Test
  @Order(2)
  void theExportersMetricsAreOnThePrometheusEndpoint() throws Exception {
    String metrics = prometheus();
    assertThat(metrics)
        .contains("flowpipe_exporter_records_total{")
        .contains("valueType=\"PROCESS_INSTANCE\"")
        .contains("flowpipe_exporter_flush_duration_seconds_count{")
        .contains("flowpipe_exporter_bulk_size_documents_count{")
        // histograms, so quantiles aggregate over partitions and nodes
        .contains("flowpipe_exporter_export_latency_seconds_bucket{")
        .contains("flowpipe_exporter_arrival_delay_seconds_bucket{")
        .contains("flowpipe_exporter_flush_duration_seconds_bucket{")
        .contains("flowpipe_exporter_lag_records{")
        .contains("flowpipe_exporter_lag_age_milliseconds{");
  }

  private String prometheus() throws Exception {
    return HttpClient.newHttpClient()
        .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/actuator/prometheus")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /**
   * {@code /actuator/prometheus} shows the broker's own metrics (processing, backpressure, exporting, Raft), which it
   * keeps in another registry, beside the node's, once the node has run instances. (Here, not on the shared web-app
   * node: that registry is the JVM's one, and other classes' in-process brokers remove its series as they close.)
   */
  @Test
  @Order(2)
  void theBrokersProcessingBackpressureExporterAndRaftMetricsAppearBesideOurs() throws Exception {
    java.util.Set<String> families = prometheus().lines().filter(line -> line.startsWith("# TYPE "))
        .map(line -> line.split(" ")[2]).collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));

    assertThat(families).as("metric families on the endpoint").contains(
        "zeebe_element_instance_events_total", // processing
        "zeebe_backpressure_requests_limit", "zeebe_dropped_request_count_total", // backpressure
        "zeebe_flow_control_outcome_total",
        "zeebe_exporter_events_total", // exporting
        "zeebe_log_appender_commit_latency", "atomix_role", // the log and Raft
        "flowpipe_exporter_records_total", "jvm_memory_used_bytes"); // ours and Spring's, still there
  }

  @Test
  @Order(2)
  void everyMetricTheDashboardUsesIsPublished() throws Exception {
    String metrics = prometheus();
    java.util.List<String> published = metrics.lines().filter(line -> !line.startsWith("#"))
        .map(line -> line.split("[{ ]")[0]).distinct().toList();
    for (String listed : java.nio.file.Files.readAllLines(java.nio.file.Path.of("../docs/grafana/metrics.txt"))) {
      if (listed.isBlank() || listed.startsWith("#")) {
        continue;
      }
      String name = listed.strip();
      assertThat(published).as("docs/grafana/metrics.txt lists %s", name).anyMatch(series -> series.equals(name)
          || series.startsWith(name + "_") && java.util.List.of("_bucket", "_count", "_sum", "_max", "_total")
              .contains(series.substring(name.length())));
    }
    assertThat(metrics).as("the disk of the node's data directory").contains("disk_free_bytes{path=\""
        + node.dataDirectory().toAbsolutePath());
  }

  @Test
  @Order(2)
  void flowControlReportsEachPartitionAndTakesValidChangesAtRuntime() throws Exception {
    HttpResponse<String> report = http("GET", "/actuator/flowControl", null);
    assertThat(report.statusCode()).isEqualTo(200);
    assertThat(report.body())
        .contains("\"mode\":\"time\"").contains("\"maxExportLag\":\"2000ms\"")
        .contains("\"partitionId\":1").contains("\"requestLimiter\":{\"algorithm\"")
        .contains("\"writeLimit\":{\"enabled\":false}").contains("\"lagRecords\"").contains("\"lagMillis\"");

    HttpResponse<String> changed = http("POST", "/actuator/flowControl", "{\"maxExportLag\": \"PT0.75S\"}");
    assertThat(changed.statusCode()).isEqualTo(200);
    assertThat(changed.body()).contains("\"maxExportLag\":\"750ms\"");
    HttpResponse<String> staticLimit = http("POST", "/actuator/flowControl", "{\"writeLimit\": 5000}");
    assertThat(staticLimit.statusCode()).isEqualTo(200);
    Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(http("GET", "/actuator/flowControl", null).body())
            .contains("\"writeLimit\":{\"enabled\":true,\"limit\":5000}"));
    assertThat(http("POST", "/actuator/flowControl", "{\"writeLimit\": 0, \"maxExportLag\": \"2s\"}").statusCode())
        .isEqualTo(200);
  }

  @ParameterizedTest(name = "{0}")
  @Order(2)
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"maxExportLag\": \"soon\"} | maxExportLag",
        "{\"resolution\": \"1ms\"} | resolution",
        "{\"mode\": \"sometimes\"} | mode",
        "{\"minWriteRate\": 0} | min-write-rate",
        "{\"minWriteRate\": \"many\"} | minWriteRate",
      })
  void flowControlRejectsAnInvalidChangeNamingTheFieldAndKeepsItsSettings(String body, String field)
      throws Exception {
    String before = http("GET", "/actuator/flowControl", null).body();
    HttpResponse<String> response = http("POST", "/actuator/flowControl", body);
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.body()).contains(field);
    assertThat(http("GET", "/actuator/flowControl", null).body())
        .contains(before.substring(0, before.indexOf("\"partitions\"")));
  }

  @Test
  @Order(2)
  void flowControlMetricsAreOnThePrometheusEndpoint() throws Exception {
    assertThat(http("GET", "/actuator/prometheus", null).body())
        .contains("flowpipe_flowcontrol_write_limit{")
        .contains("flowpipe_flowcontrol_lag_records{")
        .contains("flowpipe_flowcontrol_lag_time_milliseconds{")
        .contains("flowpipe_flowcontrol_rejected_total{")
        .contains("flowpipe_exporter_position_durable{");
  }

  private HttpResponse<String> http(String method, String path, String jsonBody) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path));
    if (jsonBody == null) {
      request.GET();
    } else {
      request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(jsonBody));
    }
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  @Order(3)
  void afterARestartOnTheSameDataEarlierInstancesRemainAndNewOnesRun() {
    long storePidBefore = node.store().embeddedPid();
    node.stop();
    assertThat(ProcessHandle.of(storePidBefore).map(ProcessHandle::isAlive).orElse(false))
        .as("embedded OpenSearch process stopped with the node")
        .isFalse();

    node.start();

    SearchStore store = node.store().client();
    for (long key : firstRunInstances) {
      assertThat(store.get(ReadModelIndex.PROCESS_INSTANCE.indexName(PREFIX), String.valueOf(key)))
          .hasValueSatisfying(instance -> assertThat(instance).containsEntry("state", "COMPLETED"));
    }

    Set<Long> secondRun = ConcurrentHashMap.newKeySet();
    try (ZeebeClient client = node.client()) {
      // no new deployment: the broker recovered the definition from its own state
      for (int i = 0; i < 3; i++) {
        var created =
            client.newCreateInstanceCommand().bpmnProcessId("order-process").latestVersion().send().join();
        assertThat(created.getProcessDefinitionKey()).isEqualTo(definitionKey);
        secondRun.add(created.getProcessInstanceKey());
      }
      try (JobWorker worker = completeJobs(client)) {
        awaitCompleted(store, secondRun);
      }
    }
    assertThat(secondRun).doesNotContainAnyElementsOf(firstRunInstances);
    String definitions = ReadModelIndex.PROCESS_DEFINITION.indexName(PREFIX);
    store.refresh(definitions);
    assertThat(store.count(definitions)).as("the definition was exported once, not again on restart").isEqualTo(1);
  }

  private static JobWorker completeJobs(ZeebeClient client) {
    return client
        .newWorker()
        .jobType("ship")
        .handler((jobClient, job) -> jobClient.newCompleteCommand(job.getKey()).send().join())
        .pollInterval(Duration.ofMillis(50))
        .open();
  }

  private static void awaitCompleted(SearchStore store, Set<Long> instanceKeys) {
    String index = ReadModelIndex.PROCESS_INSTANCE.indexName(PREFIX);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              List<Long> notCompleted = new ArrayList<>();
              for (long key : instanceKeys) {
                var instance = store.get(index, String.valueOf(key));
                if (instance.isEmpty() || !"COMPLETED".equals(instance.get().get("state"))) {
                  notCompleted.add(key);
                }
              }
              assertThat(notCompleted).as("instances not yet COMPLETED in the store").isEmpty();
            });
  }
}
