package dev.flowpipe.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.testsupport.ImageTarball;
import dev.flowpipe.testsupport.StockZeebeBroker;
import dev.flowpipe.testsupport.StockZeebeCluster;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's image as a container runtime would see it: its configuration read from the tarball's own JSON, and
 * the server started from the image's own file system (the layers applied in order) with nothing of this machine's
 * but the kernel: chroot into that folder as the image's user, in a mount and PID namespace with a fresh /proc. Alive
 * and not ready without a store and a gateway; ready beside a stock Zeebe broker with our exporter and a real store.
 */
@ExtendWith(SharedOpenSearch.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerImageIT {

  /** The image's main class, from its POM: the server. */
  private static final String MAIN_CLASS = System.getProperty("flowpipe.image.main-class");

  @TempDir static Path temp;

  private ImageTarball image;

  @BeforeAll
  void unpack() throws Exception {
    image = ImageTarball.unpack(Path.of(System.getProperty("flowpipe.image.tar")), temp.resolve("tarball"));
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class ItsConfiguration {

    @Test
    void runsAsTheNonRootUserByNumber() {
      assertThat(image.container().get("User").asText()).isEqualTo("1000:1000");
    }

    @Test
    void startsTheServerWithTheImagesOwnJavaRuntime() {
      assertThat(image.strings("Entrypoint"))
          .startsWith("/opt/java/bin/java")
          .contains("-cp", "@/app/jib-classpath-file")
          .endsWith(MAIN_CLASS);
    }

    @Test
    void exposesTheHttpPort() {
      assertThat(fieldNames(image.container().get("ExposedPorts"))).containsExactly("8080/tcp");
    }

    @Test
    void isLabelledWithItsVersionAndLicence() {
      JsonNode labels = image.container().get("Labels");
      assertThat(labels.get("org.opencontainers.image.version").asText())
          .isEqualTo(System.getProperty("flowpipe.version"));
      assertThat(labels.get("org.opencontainers.image.licenses").asText()).isEqualTo("Apache-2.0");
      assertThat(labels.get("org.opencontainers.image.title").asText()).isNotBlank();
    }

    @Test
    void takesItsConfigurationFromAMountedFolderAndBindsAllInterfaces() {
      assertThat(image.strings("Env"))
          .contains(
              "SPRING_CONFIG_ADDITIONAL_LOCATION=optional:file:/config/",
              "SERVER_ADDRESS=0.0.0.0",
              "MANAGEMENT_ENDPOINT_HEALTH_PROBES_ENABLED=true");
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class ItsFileSystem {

    private Path root;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @BeforeAll
    void applyTheLayers() throws Exception {
      root = image.rootFileSystem(temp.resolve("root"));
    }

    @Test
    void shipsNoCamundaLicensedJar() throws IOException {
      // the Camunda License 1.0 and proprietary artifacts by name (their POMs say so: docs/adr/0012); the Apache-2.0
      // client and protocol jars beside them are fine
      Pattern vendorLicensed = Pattern.compile(
          "(zeebe-broker|zeebe-workflow-engine|zeebe-gateway|zeebe-gateway-grpc|zeebe-cluster-config"
              + "|zeebe-protocol-jackson|zeebe-stream-platform|identity-sdk|camunda-zeebe)-\\d.*\\.jar");
      try (Stream<Path> files = Files.walk(root.resolve("app"))) {
        assertThat(files.map(path -> path.getFileName().toString()).filter(name -> name.endsWith(".jar")))
            .contains("zeebe-client-java-8.6.0.jar")
            .noneMatch(name -> vendorLicensed.matcher(name).matches());
      }
    }

    @Test
    void startsTheServerAsItsUserWithTheMountedConfigurationAliveButNotReadyWithoutStoreAndGateway() throws Exception {
      int port = freePort();
      // the "mounted" configuration file: only it says which port to serve on
      Files.writeString(root.resolve("config/application.yaml"), "server:\n  port: " + port + "\n");
      Process server = startFromTheImage("unready", Map.of(
          "FLOWPIPE_STORE_URL", "http://127.0.0.1:" + freePort(),
          "FLOWPIPE_SERVER_GATEWAY_ADDRESS", "127.0.0.1:" + freePort()));
      try {
        long startMillis = awaitLiveness(server, port, "unready");
        System.out.printf("server image: started from its layout in %d ms; layers %d bytes compressed%n",
            startMillis, image.compressedBytes());

        HttpResponse<String> liveness = get(port, "/actuator/health/liveness");
        assertThat(liveness.body()).contains("\"status\":\"UP\"");
        // nothing listens at the store's URL or the gateway's address: alive, but not ready for traffic
        HttpResponse<String> readiness = get(port, "/actuator/health/readiness");
        assertThat(readiness.statusCode()).as(readiness.body()).isEqualTo(503);
        assertThat(readiness.body()).contains("\"status\":\"DOWN\"");
        assertThat(ProcessHandle.of(server.pid()).orElseThrow().descendants()
                .map(process -> process.info().user().orElse("?")).distinct().toList())
            .as("the users of the server's processes (below unshare, which runs as the test's user)")
            .isNotEmpty()
            .doesNotContain("root", "0");

        // as a runtime stops a container: SIGTERM to its first process, which is the server itself
        ProcessHandle.of(server.pid()).orElseThrow().children().forEach(ProcessHandle::destroy);
        assertThat(server.waitFor(60, TimeUnit.SECONDS)).as("the server stops on SIGTERM").isTrue();
      } finally {
        stop(server);
        Files.delete(root.resolve("config/application.yaml"));
      }
    }

    @Test
    void isReadyOnceItsGatewayHasALeaderAndItsStoreHoldsTheReadModel(EmbeddedSearchStore openSearch) throws Exception {
      // given a stock Zeebe broker (Camunda's distribution) with our exporter, which creates the read model in the store
      String prefix = SharedOpenSearch.uniquePrefix();
      var exporter = new StockZeebeCluster.Exporter("flowpipe", "dev.flowpipe.exporter.ReadModelExporter",
          Path.of(System.getProperty("flowpipe.exporter.standalone-jar")),
          Map.of("url", openSearch.url(), "index-prefix", prefix));
      try (StockZeebeCluster cluster = StockZeebeCluster.start(
          StockZeebeCluster.Settings.of(temp.resolve("broker"), 1, 1, 1, exporter))) {
        StockZeebeBroker broker = cluster.broker(0);
        int port = freePort();
        // when the image's server is given them, in environment variables as a Deployment gives them
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("SERVER_PORT", String.valueOf(port));
        settings.put("FLOWPIPE_STORE_URL", openSearch.url());
        settings.put("FLOWPIPE_STORE_INDEX_PREFIX", prefix);
        settings.put("FLOWPIPE_SERVER_GATEWAY_ADDRESS", broker.gateway().getHost() + ":" + broker.gateway().getPort());
        settings.put("FLOWPIPE_SERVER_FLOW_CONTROL_BROKERS_0_NODE_ID", "0");
        settings.put("FLOWPIPE_SERVER_FLOW_CONTROL_BROKERS_0_MONITORING_URL", broker.monitoring().toString());
        Process server = startFromTheImage("ready", settings);
        try {
          long startMillis = awaitLiveness(server, port, "ready");
          // then ready: the gateway and the store as readiness names them
          await("the server's readiness with a gateway and a store").atMost(Duration.ofMinutes(1))
              .pollInterval(Duration.ofMillis(250)).ignoreExceptions()
              .until(() -> get(port, "/actuator/health/readiness").statusCode() == 200);
          long readyMillis = (System.nanoTime() - startedNanos) / 1_000_000;
          HttpResponse<String> health = get(port, "/actuator/health");
          System.out.printf("server image beside a stock broker: live after %d ms, ready after %d ms; health %s%n",
              startMillis, readyMillis, health.body());
          assertThat(health.body()).contains("\"gateway\":{\"status\":\"UP\"")
              .contains("\"searchStore\":{\"status\":\"UP\"");
          // and it serves the read model from the store it was given (empty: nothing ran yet)
          HttpResponse<String> search = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                  + "/v2/process-instances/search")).header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
          assertThat(search.statusCode()).as(search.body()).isEqualTo(200);
          assertThat(search.body()).contains("\"totalItems\":0");
        } finally {
          stop(server);
        }
      }
    }

    private long startedNanos;

    /** Starts the image's entrypoint as a runtime does, with the image's environment and {@code settings} over it. */
    private Process startFromTheImage(String name, Map<String, String> settings) throws IOException {
      Map<String, String> environment = image.environment();
      if (!settings.containsKey("SERVER_PORT")) {
        environment.remove("SERVER_PORT"); // the image's default; the mounted file decides then
      }
      environment.putAll(settings);
      ProcessBuilder builder = new ProcessBuilder(image.startCommand(root)).redirectErrorStream(true)
          .redirectOutput(temp.resolve("server-" + name + ".log").toFile());
      builder.environment().clear();
      builder.environment().putAll(environment);
      builder.environment().put("PATH", ImageTarball.HOST_PATH); // for unshare, sh and chroot outside
      startedNanos = System.nanoTime();
      return builder.start();
    }

    /** Milliseconds from the start to the liveness probe's 200. */
    private long awaitLiveness(Process server, int port, String name) {
      await("the server's liveness (log " + temp.resolve("server-" + name + ".log") + ")")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions()
          .failFast("the server exited", () -> !server.isAlive())
          .until(() -> get(port, "/actuator/health/liveness").statusCode() == 200);
      return (System.nanoTime() - startedNanos) / 1_000_000;
    }

    private void stop(Process server) throws InterruptedException {
      if (server.isAlive()) {
        // unshare ignores SIGTERM while it waits, and chroot's change of user clears --kill-child's signal: kill the
        // server itself, the first process of its PID namespace, which takes the namespace along
        ProcessHandle.of(server.pid()).orElseThrow().children().forEach(ProcessHandle::destroyForcibly);
        server.waitFor();
      }
    }

    private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
      return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }


  private static List<String> fieldNames(JsonNode object) {
    List<String> names = new ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
