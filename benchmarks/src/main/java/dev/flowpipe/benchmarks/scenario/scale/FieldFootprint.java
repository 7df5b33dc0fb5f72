package dev.flowpipe.benchmarks.scenario.scale;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.benchmarks.fixture.FixtureSettings;
import dev.flowpipe.benchmarks.fixture.ReadModelFixture;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Unit;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.ScratchDirectories;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The {@code footprint-fields} scenario: where the bytes of a finished instance go, field by field. The fixture writes
 * {@code instances} completed instances of its 3-task, 15-variable process (the documents of a real run, checked by
 * {@code ReadModelFixtureShapeTest}) into an embedded store; the read model's index is force-merged to one segment
 * and measured as {@code footprint} measures it, then the store's {@code _disk_usage} analysis (Elasticsearch; it is
 * absent from OpenSearch) gives each field's bytes by structure: inverted index, stored fields ({@code _source}), doc
 * values, points, norms. Minutes instead of a real node's run, so mapping variants can be compared on the same data;
 * {@code footprint} stays the figure of record.
 */
public final class FieldFootprint {

  private static final String PREFIX = "fields";

  private FieldFootprint() {}

  public static Report run(Path root, int instances, EmbeddedSearchStore.Engine engine) throws Exception {
    Report report = Report.describing("bytes per finished instance by field: the fixture's completed instances of the "
        + "3-task, 15-variable process in the embedded " + engine.name().toLowerCase() + ", force-merged to one segment");
    Section body = report.body();
    body.figure("instances", instances, Unit.NONE);
    body.text("loadAverageAtStart", ScaleRun.loadAverage());
    EmbeddedSearchStore.Settings s = ScaleRun.patientStore(root);
    String classpath = engine == EmbeddedSearchStore.Engine.OPENSEARCH ? s.classpath()
        : root.resolve("embedded-elasticsearch/target/classes") + ":"
            + root.resolve("embedded-elasticsearch/target/child-classpath") + "/*";
    EmbeddedSearchStore.Settings settings = new EmbeddedSearchStore.Settings(engine, 0, 0, s.heapMegabytes(),
        s.startTimeout(), s.stopTimeout(), classpath, s.javaHome(), s.niceness(), s.jvmOptions(), s.watermarks(),
        s.restart());
    FixtureSettings fixture = new FixtureSettings(instances, 1, 1, 2, 0, 0, 0, Instant.parse("2026-10-01T00:00:00Z"),
        Duration.ofDays(30), 5_000);
    try (EmbeddedSearchStore node = EmbeddedSearchStore.start(ScratchDirectories.create("bench-fields"), settings);
        SearchStore store = SearchStoreConnector.connect(new StoreConnection(URI.create(node.url()), null, null, null,
            Duration.ofMinutes(5)))) {
      ReadModelFixture.Result loaded = new ReadModelFixture(store, node.url(), PREFIX, fixture, System.out::println)
          .write();
      body.typed("documents", loaded.documentsByEntity());
      HttpClient http = HttpClient.newHttpClient();
      String physical = ReadModelIndex.sharedIndexName(PREFIX);
      Section merged = Footprint.merged(http, node.url(), physical, instances);
      body.section("readModel", merged);
      if (engine == EmbeddedSearchStore.Engine.ELASTICSEARCH) {
        body.section("byField", byField(Footprint.send(http, node.url(), "POST",
            "/" + physical + "/_disk_usage?run_expensive_tasks=true"), physical, instances));
      }
      body.text("loadAverageAtEnd", ScaleRun.loadAverage());
    }
    return report;
  }

  /** Each field's bytes per instance, largest first, split by structure, from a {@code _disk_usage} answer. */
  static Section byField(JsonNode diskUsage, String index, int instances) {
    JsonNode fields = diskUsage.path(index).path("fields");
    List<Map.Entry<String, JsonNode>> rows = new ArrayList<>();
    fields.fields().forEachRemaining(rows::add);
    rows.sort(Comparator.comparingLong((Map.Entry<String, JsonNode> e) ->
        e.getValue().path("total_in_bytes").asLong()).reversed());
    Section byField = new Section();
    for (Map.Entry<String, JsonNode> row : rows) {
      JsonNode f = row.getValue();
      byField.section(row.getKey())
          .figure("total", per(f.path("total_in_bytes"), instances), Unit.BYTES)
          .figure("invertedIndex", per(f.path("inverted_index").path("total_in_bytes"), instances), Unit.BYTES)
          .figure("storedFields", per(f.path("stored_fields_in_bytes"), instances), Unit.BYTES)
          .figure("docValues", per(f.path("doc_values_in_bytes"), instances), Unit.BYTES)
          .figure("points", per(f.path("points_in_bytes"), instances), Unit.BYTES)
          .figure("norms", per(f.path("norms_in_bytes"), instances), Unit.BYTES);
    }
    return byField;
  }

  private static double per(JsonNode bytes, int instances) {
    return Math.round(bytes.asLong() * 10.0 / instances) / 10.0;
  }
}
