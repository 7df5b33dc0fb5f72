package dev.flowpipe.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * What reaches the artifacts we ship from Camunda's {@code camunda-zeebe} archive, read from the artifacts
 * themselves (tar's and the jar's own listings): the node's archive carries the broker's Camunda-licensed jars and
 * the licence's text, and nothing else of the archive; the exporter's standalone jar and the importer's jar carry no
 * Camunda code at all.
 */
class ShippedArtifactsIT {

  private static final Path ARCHIVE = Path.of(System.getProperty("flowpipe.distribution.archive"));
  private static final Path EXPORTER_JAR = Path.of(System.getProperty("flowpipe.exporter.standalone-jar"));
  private static final Path IMPORTER_JAR =
      Path.of(System.getProperty("flowpipe.checkout"), "importer", "target",
          "importer-" + System.getProperty("flowpipe.version") + ".jar");

  @Nested
  class TheNodesArchive {

    @Test
    void shipsTheBrokersCamundaLicensedJarsWithTheLicenceText() throws Exception {
      List<String> entries = archiveEntries();
      String root = "flowpipe-" + System.getProperty("flowpipe.version") + "/";

      assertThat(entries)
          .contains(root + "lib/zeebe-broker-8.6.0.jar", root + "lib/zeebe-gateway-grpc-8.6.0.jar",
              root + "lib/zeebe-cluster-config-8.6.0.jar", root + "licenses/zeebe/CAMUNDA-LICENSE-1.0.txt",
              root + "NOTICE");
    }

    @Test
    void shipsNothingElseOfTheDistributionArchive() throws Exception {
      assertThat(archiveEntries())
          .noneMatch(entry -> entry.contains("identity-sdk"))
          .noneMatch(entry -> entry.contains("camunda-zeebe-"))
          .noneMatch(entry -> entry.contains("zeebe-opensearch-exporter") || entry.contains("zeebe-elasticsearch-exporter"))
          .noneMatch(entry -> entry.contains("/operate") || entry.contains("/tasklist") || entry.contains("camunda-search-client"))
          .noneMatch(entry -> entry.endsWith(".tar.gz"));
    }
  }

  @Nested
  class TheExportersStandaloneJar {

    @Test
    void carriesNoCamundaOrZeebeClass() throws IOException {
      assertThat(jarEntries(EXPORTER_JAR))
          .isNotEmpty()
          .noneMatch(entry -> entry.startsWith("io/camunda/") || entry.startsWith("META-INF/maven/io.camunda/"));
    }
  }

  @Nested
  class TheImportersJar {

    @Test
    void carriesOnlyOurOwnClasses() throws IOException {
      assertThat(jarEntries(IMPORTER_JAR))
          .filteredOn(entry -> entry.endsWith(".class"))
          .isNotEmpty()
          .allMatch(entry -> entry.startsWith("dev/flowpipe/"));
    }
  }

  private static List<String> archiveEntries() throws IOException, InterruptedException {
    Process tar = new ProcessBuilder("tar", "-tzf", ARCHIVE.toString()).redirectErrorStream(true).start();
    List<String> entries = new String(tar.getInputStream().readAllBytes()).lines().toList();
    assertThat(tar.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(tar.exitValue()).as(String.join("\n", entries)).isZero();
    return entries;
  }

  private static List<String> jarEntries(Path jar) throws IOException {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      return Collections.list(zip.entries()).stream().map(entry -> entry.getName()).toList();
    }
  }
}
