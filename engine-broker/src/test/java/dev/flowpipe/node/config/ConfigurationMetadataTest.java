package dev.flowpipe.node.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every {@code flowpipe.*} key has IDE completion with a description (the configuration metadata the build generates
 * from the settings records), and is documented in a README: written out, or in a row that names its group and
 * {@code / `last-part`}.
 */
class ConfigurationMetadataTest {

  private static final List<Path> READMES = List.of(Path.of("../README.md"), Path.of("../webapp/README.md"),
      Path.of("../importer/README.md"));

  private static List<JsonNode> properties() throws IOException {
    List<JsonNode> properties = new ArrayList<>();
    for (URL url : Collections.list(ConfigurationMetadataTest.class.getClassLoader()
        .getResources("META-INF/spring-configuration-metadata.json"))) {
      try (InputStream in = url.openStream()) {
        new ObjectMapper().readTree(in).path("properties").forEach(property -> {
          if (property.path("name").asText().startsWith("flowpipe.")) {
            properties.add(property);
          }
        });
      }
    }
    return properties;
  }

  @Test
  void everyKeyHasADescriptionAndTheNodesAndTheWebAppsAreThere() throws IOException {
    List<JsonNode> properties = properties();

    assertThat(properties).extracting(p -> p.path("name").asText())
        .contains("flowpipe.broker.partitions-count", "flowpipe.exporter.bulk.delay", "flowpipe.webapp.operations.enabled");
    assertThat(properties).allSatisfy(p ->
        assertThat(p.path("description").asText()).as(p.path("name").asText()).isNotBlank());
  }

  @Test
  void everyKeyIsDocumentedInAReadme() throws IOException {
    StringBuilder docs = new StringBuilder();
    for (Path readme : READMES) {
      if (Files.exists(readme)) {
        docs.append(Files.readString(readme)).append('\n');
      }
    }
    List<String> lines = docs.toString().lines().toList();
    for (JsonNode property : properties()) {
      // a key no longer read (level error: setting it stops start-up) is documented by the key that replaced it
      String key = property.has("deprecation") ? property.path("deprecation").path("replacement").asText()
          : property.path("name").asText();
      assertThat(key).as("the replacement of %s", property.path("name").asText()).isNotBlank();
      String group = key.substring(0, key.lastIndexOf('.') + 1);
      String last = key.substring(key.lastIndexOf('.') + 1);
      boolean documented = docs.indexOf("`" + key) >= 0 || lines.stream()
          .anyMatch(line -> line.contains("`" + group) && line.contains("/ `" + last + "`"));
      assertThat(documented).as("%s in a README (README.md, webapp/README.md, importer/README.md)", key).isTrue();
    }
  }
}
