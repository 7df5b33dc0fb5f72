package dev.flowpipe.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.testsupport.ImageTarball;
import dev.flowpipe.testsupport.NodeProcess;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's image as a container runtime would see it: the tarball's configuration, its file system, and the node
 * started from that file system as the image's user (as the server's image is, {@link ImageTarball#startCommand}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeImageIT {

  @TempDir static Path temp;

  private ImageTarball image;
  private Path root;

  @BeforeAll
  void unpack() throws Exception {
    image = ImageTarball.unpack(Path.of(System.getProperty("flowpipe.image.tar")), temp.resolve("tarball"));
    root = image.rootFileSystem(temp.resolve("root"));
    System.out.printf("node image: layers %d bytes compressed%n", image.compressedBytes());
  }

  @Nested
  class ItsConfiguration {

    @Test
    void runsAsTheNonRootUserByNumber() {
      assertThat(image.container().get("User").asText()).isEqualTo("1000:1000");
    }

    @Test
    void startsTheNodeWithTheEmbeddedStoresOwnClassPath() {
      assertThat(image.strings("Entrypoint"))
          .startsWith("/opt/java/bin/java")
          .contains("-Dflowpipe.store.embedded.classpath=/opt/flowpipe/store/*", "@/app/jib-classpath-file")
          .endsWith("dev.flowpipe.node.NodeApplication");
    }

    @Test
    void exposesTheWebAndGatewayPortsAndKeepsItsDataInAVolume() {
      List<String> ports = new ArrayList<>();
      image.container().get("ExposedPorts").fieldNames().forEachRemaining(ports::add);
      assertThat(ports).containsExactlyInAnyOrder("8080/tcp", "26500/tcp");
      assertThat(image.container().get("Volumes").has("/var/lib/flowpipe")).isTrue();
      assertThat(image.strings("Env"))
          .contains("FLOWPIPE_DATA_DIRECTORY=/var/lib/flowpipe", "SERVER_ADDRESS=0.0.0.0",
              "FLOWPIPE_GATEWAY_HOST=0.0.0.0", "SPRING_CONFIG_ADDITIONAL_LOCATION=optional:file:/config/",
              // no `nice` program in the image: the store runs at the node's priority
              "FLOWPIPE_STORE_EMBEDDED_NICENESS=0");
    }

    @Test
    void namesTheCamundaLicenseBesideOursInItsLabels() {
      JsonNode labels = image.container().get("Labels");
      assertThat(labels.get("org.opencontainers.image.version").asText())
          .isEqualTo(System.getProperty("flowpipe.version"));
      assertThat(labels.get("org.opencontainers.image.licenses").asText())
          .isEqualTo("Apache-2.0 AND LicenseRef-Camunda-License-1.0");
      assertThat(labels.get("org.opencontainers.image.description").asText()).contains("non-production");
    }
  }

  @Nested
  class StartedFromItsOwnLayout {

    @Test
    void runsTheBrokerAndTheStoreAsItsUserAndServesAnInstanceFromItsReadModel() throws Exception {
      // given the image's environment and the node's ports (the test's network is the host's: free ports, not 8080)
      Map<String, String> environment = image.environment();
      environment.put("PATH", ImageTarball.HOST_PATH); // for unshare, sh and chroot outside
      Map<String, Object> settings = new LinkedHashMap<>();
      settings.put("flowpipe.data-directory", "/var/lib/flowpipe"); // the image's volume, inside its root
      if (!NodeProcess.TEST_JIT.isEmpty()) {
        settings.put("flowpipe.store.embedded.jvm-options", NodeProcess.TEST_JIT);
      }
      long started = System.nanoTime();
      try (NodeProcess node = NodeProcess.launch(image.startCommand(root), environment,
          root.resolve("var/lib/flowpipe"), settings)) {
        // when it starts: the broker, the embedded store from /opt/flowpipe/store and the web app
        node.awaitReady("/actuator/health/readiness", Duration.ofMinutes(5));
        long readyMillis = (System.nanoTime() - started) / 1_000_000;
        List<String> users = ProcessHandle.of(node.pid()).orElseThrow().descendants()
            .map(process -> process.info().user().orElse("?")).distinct().toList();
        long javaProcesses = ProcessHandle.of(node.pid()).orElseThrow().descendants()
            .filter(process -> process.info().command().orElse("").equals(root.resolve("opt/java/bin/java")
                .toString()) || process.info().command().orElse("").equals("/opt/java/bin/java")).count();

        // and a process runs through its gateway
        try (var client = node.client()) {
          client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess("image-smoke").startEvent()
              .endEvent().done(), "image-smoke.bpmn").send().join();
          long key = client.newCreateInstanceCommand().bpmnProcessId("image-smoke").latestVersion().send().join()
              .getProcessInstanceKey();

          // then its web app serves the instance from the read model in its own store
          HttpClient http = HttpClient.newHttpClient();
          String body = await("instance " + key + " in the node's read model").atMost(Duration.ofMinutes(1))
              .pollInterval(Duration.ofMillis(250)).ignoreExceptions()
              .until(() -> http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort()
                      + "/v2/process-instances/" + key)).build(), HttpResponse.BodyHandlers.ofString()),
                  response -> response.statusCode() == 200).body();
          System.out.printf("node image: ready %d ms after the start from its layout; processes' users %s; %d java "
              + "processes (node and store); instance %s%n", readyMillis, users, javaProcesses, body);
          assertThat(body).contains("\"image-smoke\"");
        }
        assertThat(users).as("the users of the node's processes (below unshare, which runs as the test's user)")
            .isNotEmpty().doesNotContain("root", "0");
        assertThat(javaProcesses).as("the node's and its store's JVM, both the image's runtime").isEqualTo(2);
      }
    }
  }

  @Nested
  class ItsFileSystem {

    @Test
    void carriesTheCamundaLicenseTextWithTheBrokerJars() throws IOException {
      assertThat(jarNames()).anyMatch(name -> name.startsWith("zeebe-broker-"));
      assertThat(Files.readString(root.resolve("opt/flowpipe/licenses/zeebe/CAMUNDA-LICENSE-1.0.txt")))
          .contains("Camunda License 1.0");
      assertThat(root.resolve("opt/flowpipe/NOTICE")).exists();
    }

    @Test
    void leavesOutIdentitySdkAndTheDistributionArchivesOwnJars() throws IOException {
      assertThat(jarNames())
          .noneMatch(name -> name.startsWith("identity-sdk") || name.startsWith("camunda-zeebe")
              || name.startsWith("operate") || name.startsWith("tasklist"));
    }

    @Test
    void hasTheEmbeddedStoresClassPathApartFromTheNodes() throws IOException {
      try (Stream<Path> store = Files.list(root.resolve("opt/flowpipe/store"))) {
        assertThat(store.map(path -> path.getFileName().toString()))
            .anyMatch(name -> name.startsWith("embedded-opensearch-"))
            .anyMatch(name -> name.startsWith("opensearch-"));
      }
    }

    private List<String> jarNames() throws IOException {
      try (Stream<Path> files = Files.walk(root.resolve("app"))) {
        return files.map(path -> path.getFileName().toString()).filter(name -> name.endsWith(".jar")).toList();
      }
    }
  }
}
