package dev.flowpipe.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.MigratedReadModel;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.PreviousSchemaReadModel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A node started against a store holding the previous read-model schema migrates it and comes up healthy. */
@ExtendWith(SharedOpenSearch.class)
class SchemaMigrationNodeTest {

  @TempDir Path data;

  @Test
  void aNodeStartedOnAStoreOfThePreviousSchemaMigratesEveryDocumentAndReportsItInItsHealth(
      EmbeddedSearchStore external, SearchStore direct) throws Exception {
    // given a store holding schema version 1 with data
    String prefix = SharedOpenSearch.uniquePrefix();
    var written = PreviousSchemaReadModel.write(external.url(), prefix, 40);
    long total = 6 * 40 + 2;

    // when a node starts against it
    try (TestNode node = new TestNode(data)
        .with("flowpipe.store.url", external.url())
        .with("flowpipe.exporter.index-prefix", prefix)
        .start()) {

      // then every document is there in the new version, and the health says so
      MigratedReadModel.assertMigrated(direct, prefix, written);
      HttpResponse<String> health = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/actuator/health")).build(),
          HttpResponse.BodyHandlers.ofString());
      JsonNode answer = new ObjectMapper().readTree(health.body());
      assertThat(answer.path("status").asText()).as(health.body()).isEqualTo("UP");
      JsonNode schema = answer.path("components").path("searchStore").path("details").path("schema");
      assertThat(schema.path("migration").asText()).as(health.body()).isEqualTo("MIGRATED");
      assertThat(schema.path("migratedFrom").asInt()).isEqualTo(1);
      assertThat(schema.path("version").asInt()).isEqualTo(2);
      assertThat(schema.path("documentsCopied").asLong()).isEqualTo(total);
      assertThat(schema.path("documentsTotal").asLong()).isEqualTo(total);
    }
  }
}
