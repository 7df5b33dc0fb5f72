package dev.flowpipe.images;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.testsupport.ImageTarball;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The node's image as a container runtime would see it: the tarball's configuration and its file system. */
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
