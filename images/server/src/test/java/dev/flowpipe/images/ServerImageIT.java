package dev.flowpipe.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.testsupport.ImageTarball;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's image as a container runtime would see it: its configuration read from the tarball's own JSON, and
 * the server started from the image's own file system (the layers applied in order) with nothing of this machine's
 * but the kernel: chroot into that folder as the image's user, in a mount and PID namespace with a fresh /proc.
 */
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
    private Process server;

    @BeforeAll
    void applyTheLayers() throws Exception {
      root = image.rootFileSystem(temp.resolve("root"));
    }

    @AfterAll
    void stopTheServer() throws InterruptedException {
      if (server != null && server.isAlive()) {
        // unshare ignores SIGTERM while it waits, and chroot's change of user clears --kill-child's signal: kill the
        // server itself, the first process of its PID namespace, which takes the namespace along
        ProcessHandle.of(server.pid()).orElseThrow().children().forEach(ProcessHandle::destroyForcibly);
        server.waitFor();
      }
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
      Map<String, String> environment = new LinkedHashMap<>();
      image.strings("Env").forEach(entry -> {
        int equals = entry.indexOf('=');
        environment.put(entry.substring(0, equals), entry.substring(equals + 1));
      });
      environment.remove("SERVER_PORT"); // the image's default; the mounted file decides here
      environment.put("FLOWPIPE_WEBAPP_STORE_URL", "http://127.0.0.1:" + freePort());
      // as a runtime does it: a mount and PID namespace of its own, the image's root a mount point of its own (the
      // JDK looks a file's mount up in /proc/self/mounts), a fresh /proc, the host's /dev
      List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--pid", "--fork", "sh", "-c",
          "root=$1; user=$2; shift 2; mount --bind \"$root\" \"$root\" && mount -t proc proc \"$root/proc\""
              + " && mount --rbind /dev \"$root/dev\" && exec chroot --userspec=\"$user\" \"$root\" \"$@\"",
          "sh", root.toString(), image.container().get("User").asText()));
      command.addAll(image.strings("Entrypoint"));
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(temp.resolve("server.log").toFile());
      builder.environment().clear();
      builder.environment().putAll(environment);
      builder.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"); // for unshare, sh and chroot outside
      long started = System.nanoTime();
      server = builder.start();
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

      await("the server's liveness (log " + temp.resolve("server.log") + ")")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions()
          .failFast("the server exited", () -> !server.isAlive())
          .until(() -> get(http, port, "/actuator/health/liveness").statusCode() == 200);
      long startMillis = (System.nanoTime() - started) / 1_000_000;
      System.out.printf("server image: started from its layout in %d ms; layers %d bytes compressed%n",
          startMillis, image.compressedBytes());

      HttpResponse<String> liveness = get(http, port, "/actuator/health/liveness");
      assertThat(liveness.body()).contains("\"status\":\"UP\"");
      // nothing listens at the store's URL and no gateway runs here: alive, but not ready for traffic
      HttpResponse<String> readiness = get(http, port, "/actuator/health/readiness");
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
    }

    private static HttpResponse<String> get(HttpClient http, int port, String path)
        throws IOException, InterruptedException {
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
