package dev.flowpipe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.testsupport.StockZeebeBroker;
import dev.flowpipe.testsupport.StockZeebeCluster;
import dev.flowpipe.testsupport.StoreProxy;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ProcessInstanceEvent;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The server beside one stock Zeebe 8.6 broker (Camunda's distribution, its own process) with our standalone exporter
 * jar in its YAML, writing through a store proxy to the shared OpenSearch: the web app reads what the exporter wrote,
 * a cancellation through the server's API is seen by the next search that waits for its position, and on a degraded
 * store the server's controller puts a write limit on the broker (seen in the broker's own
 * {@code GET /actuator/flowControl}) and takes it off within 5 s of the store's recovery.
 */
@ExtendWith(SharedOpenSearch.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServerBesideAStockBrokerTest {

  private static final Path EXPORTER_JAR = Path.of(System.getProperty("flowpipe.exporter.standalone-jar"));
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TARGET = Duration.ofSeconds(1);

  private StoreProxy proxy;
  /** Between the server and the store: the store as the server sees it, taken down for the readiness tests. */
  private StoreProxy serverStore;
  private StockZeebeCluster cluster;
  private StockZeebeBroker broker;
  private ZeebeClient client;
  private ConfigurableApplicationContext server;
  private String base;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void startBrokerAndServer(@TempDir Path temp, EmbeddedSearchStore openSearch) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    proxy = new StoreProxy(openSearch.url(), null, null);
    serverStore = new StoreProxy(openSearch.url(), null, null);
    var exporter = new StockZeebeCluster.Exporter("flowpipe", "dev.flowpipe.exporter.ReadModelExporter", EXPORTER_JAR,
        Map.of("url", proxy.url(), "index-prefix", prefix, "bulk-delay", "50ms", "bulk-size", "50"));
    cluster = StockZeebeCluster.start(StockZeebeCluster.Settings.of(temp.resolve("broker"), 1, 1, 1, exporter));
    broker = cluster.broker(0);
    client = broker.client();
    server = new SpringApplicationBuilder(ServerApplication.class).run(
        "--server.port=0",
        "--flowpipe.store.url=" + serverStore.url(),
        "--flowpipe.store.index-prefix=" + prefix,
        "--flowpipe.webapp.operations.enabled=true",
        "--flowpipe.server.gateway.address=" + broker.gateway().getHost() + ":" + broker.gateway().getPort(),
        "--flowpipe.server.flow-control.brokers[0].node-id=0",
        "--flowpipe.server.flow-control.brokers[0].monitoring-url=" + broker.monitoring(),
        "--flowpipe.server.flow-control.max-export-lag=" + TARGET.toMillis() + "ms",
        "--flowpipe.server.flow-control.window=2s",
        "--flowpipe.server.flow-control.warm-up=0s");
    base = "http://127.0.0.1:" + ((ServletWebServerApplicationContext) server).getWebServer().getPort();
    client.newDeployResourceCommand()
        .addProcessModel(Bpmn.createExecutableProcess("order").startEvent().serviceTask("pack", t -> t.zeebeJobType(
            "pack")).endEvent().done(), "order.bpmn")
        .addProcessModel(Bpmn.createExecutableProcess("steady").startEvent().endEvent().done(), "steady.bpmn")
        .send().join();
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.close();
    }
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    if (serverStore != null) {
      serverStore.close();
    }
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode search(String entity, String body) throws Exception {
    HttpResponse<String> answer = post("/v2/" + entity + "/search", body);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return JSON.readTree(answer.body());
  }

  @Test
  @Order(1)
  void theWebAppReadsWhatTheStockBrokersExporterWroteAndACancellationIsSeenByTheNextSearch() throws Exception {
    List<Long> keys = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ProcessInstanceEvent created = client.newCreateInstanceCommand().bpmnProcessId("order").latestVersion().send()
          .join();
      keys.add(created.getProcessInstanceKey());
    }
    await("the instances in the server's read model").atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200)).until(() -> search("process-instances",
            "{\"filter\": {\"processDefinitionId\": \"order\", \"state\": \"ACTIVE\"}}")
            .path("page").path("totalItems").asLong() == 5);

    long cancelled = keys.getFirst();
    HttpResponse<String> cancel = post("/v2/process-instances/" + cancelled + "/cancellation", "{}");
    assertThat(cancel.statusCode()).as(cancel.body()).isEqualTo(204);
    String position = cancel.headers().firstValue("Flowpipe-Written-Position").orElseThrow(
        () -> new AssertionError("no written position: the leader's log position was not read"));
    assertThat(position).matches("1:\\d+");

    JsonNode after = search("process-instances", "{\"filter\": {\"processInstanceKey\": \"" + cancelled + "\"},"
        + " \"consistency\": {\"positions\": [{\"partitionId\": 1, \"position\": " + position.split(":")[1]
        + "}], \"timeout\": \"10s\"}}");
    assertThat(after.path("consistency").path("reached").asBoolean()).isTrue();
    assertThat(after.path("items").path(0).path("state").asText()).isEqualTo("TERMINATED");
  }

  @Test
  @Order(2)
  void theControllerLimitsTheBrokerOnADegradedStoreAndReleasesItWithinFiveSecondsOfRecovery() throws Exception {
    assertThat(writeLimit()).as("no write limit while the store keeps up").isNull();
    ScheduledExecutorService load = Executors.newSingleThreadScheduledExecutor();
    try {
      // 10 instances/s, about 130 records/s (a load this shared machine's store keeps up with); the degraded store
      // takes 10 bulk operations/s
      load.scheduleAtFixedRate(() -> client.newCreateInstanceCommand().bpmnProcessId("steady").latestVersion()
          .send(), 0, 100, TimeUnit.MILLISECONDS);
      proxy.throttleBulksTo(10);
      long degradedAt = System.nanoTime();
      await("a write limit on the broker").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
          .until(() -> writeLimit() != null);
      double engageSeconds = (System.nanoTime() - degradedAt) / 1e9;
      JsonNode report = serverReport();
      int limit = writeLimit();
      System.out.printf("engaged after %.1f s: broker write limit %d records/s; server report %s%n", engageSeconds,
          limit, report);
      assertThat(limit).as("a limit, never below the floor").isGreaterThanOrEqualTo(100);
      assertThat(report.path("clusterWriteLimit").asInt()).isEqualTo(limit);
      assertThat(report.path("partitions").path(0).path("throttling").asBoolean()).isTrue();

      // the store recovers under the same load: the store keeps up, the limit goes
      proxy.throttleBulksTo(0);
      long recoveredAt = System.nanoTime();
      // the server's view each second, for the figures (lag against the limit while it lets go)
      ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor();
      watch.scheduleAtFixedRate(() -> {
        try {
          System.out.printf("%.1f s after recovery: %s%n", (System.nanoTime() - recoveredAt) / 1e9,
              serverReport().path("partitions").path(0));
        } catch (Exception e) {
          System.out.println("no report: " + e);
        }
      }, 0, 1, TimeUnit.SECONDS);
      try {
        await("the broker's write limit gone").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
            .until(() -> writeLimit() == null);
      } finally {
        watch.shutdownNow();
      }
      double releaseSeconds = (System.nanoTime() - recoveredAt) / 1e9;
      System.out.printf("released %.2f s after the store recovered; server report %s%n", releaseSeconds,
          serverReport());
      assertThat(releaseSeconds).as("seconds from recovery to no write limit").isLessThan(5);
    } finally {
      load.shutdownNow();
    }
  }

  @Test
  @Order(3)
  void isReadyWithTheGatewayAndTheStoreUpNotReadyWhileTheStoreIsDownAndReadyAgainOnceItIsBack() throws Exception {
    // given the gateway and the store up
    assertThat(get("/actuator/health/readiness").statusCode()).isEqualTo(200);

    // when the store is down, as the server reaches it
    serverStore.down(true);
    try {
      // then not ready, naming the store
      HttpResponse<String> down = get("/actuator/health/readiness");
      System.out.println("readiness with the store down: " + down.statusCode() + " " + down.body());
      assertThat(down.statusCode()).isEqualTo(503);
      assertThat(component(down, "searchStore")).isEqualTo("DOWN");
      assertThat(component(down, "gateway")).isEqualTo("UP");
    } finally {
      serverStore.down(false);
    }

    // and ready once it is back
    HttpResponse<String> back = get("/actuator/health/readiness");
    assertThat(back.statusCode()).as(back.body()).isEqualTo(200);
    assertThat(component(back, "searchStore")).isEqualTo("UP");
  }

  @Test
  @Order(4)
  void isNotReadyWithoutAGatewayThatAnswers() throws Exception {
    // when the one broker, whose gateway the server uses, is gone
    cluster.kill(0);

    // then not ready, naming the gateway
    HttpResponse<String> down = get("/actuator/health/readiness");
    System.out.println("readiness with the gateway gone: " + down.statusCode() + " " + down.body());
    assertThat(down.statusCode()).isEqualTo(503);
    assertThat(component(down, "gateway")).isEqualTo("DOWN");
    assertThat(component(down, "searchStore")).isEqualTo("UP");
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String component(HttpResponse<String> health, String name) throws Exception {
    return JSON.readTree(health.body()).path("components").path(name).path("status").asText();
  }

  /** The write limit in force on partition 1, as the broker's own endpoint reports it (null: none). */
  private Integer writeLimit() throws Exception {
    JsonNode write = broker.flowControl().path("1").path("writeRateLimit");
    return write.path("enabled").asBoolean() ? write.path("limit").asInt() : null;
  }

  private JsonNode serverReport() throws Exception {
    return JSON.readTree(http.send(HttpRequest.newBuilder(URI.create(base + "/actuator/flowControl")).build(),
        HttpResponse.BodyHandlers.ofString()).body());
  }
}
