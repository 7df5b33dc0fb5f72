package dev.flowpipe.benchmarks.scenario.scale;

import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Unit;
import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.benchmarks.fixture.FixtureSettings;
import dev.flowpipe.benchmarks.fixture.ReadModelFixture;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.webapp.WebappApplication;
import dev.flowpipe.webapp.config.WebappProperties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The {@code scale} scenario: a read model of many instances built by the {@link ReadModelFixture} in the embedded
 * OpenSearch, then every kind of UI and API read ({@link ScaleQueries}) through the standalone web app's HTTP API, one
 * at a time from one client thread, and every aggregation checked for completeness against plain counts.
 */
public final class ScaleRun {

  private static final String PREFIX = "scale";

  private ScaleRun() {}

  public static Report run(Path root, FixtureSettings settings, int runs) throws Exception {
    Report report = Report.describing("UI and API reads through the web app's HTTP API (standalone app in this JVM,"
        + " one client thread, sequential requests, answer parsed) over a read model built by the fixture in the"
        + " embedded OpenSearch (1 GB heap) on the same machine");
    Section body = report.body();
    body.section("fixture").figure("instances", settings.instances(), Unit.NONE)
        .figure("definitions", settings.definitions(), Unit.NONE).figure("versions", settings.versions(), Unit.NONE)
        .figure("partitions", settings.partitions(), Unit.NONE).figure("variablesPerInstance", 15, Unit.NONE)
        .figure("activePerMille", settings.activePerMille(), Unit.NONE)
        .figure("incidentPerMille", settings.incidentPerMille(), Unit.NONE)
        .figure("canceledPerMille", settings.canceledPerMille(), Unit.NONE)
        .text("firstStart", settings.firstStart().toString()).text("span", settings.span().toString());
    try (EmbeddedSearchStore node = EmbeddedSearchStore.start(ScratchDirectories.create("bench-scale"),
        patientStore(root));
        // a bulk can take longer than the default 30 s on a machine shared with other builds
        SearchStore store = SearchStoreConnector.connect(new StoreConnection(java.net.URI.create(node.url()), null,
            null, null, java.time.Duration.ofMinutes(5)))) {
      body.text("loadAverageBeforeLoading", loadAverage());
      ReadModelFixture.Result loaded = new ReadModelFixture(store, node.url(), PREFIX, settings, System.out::println)
          .write();
      body.text("loadAverageAfterLoading", loadAverage());
      body.typed("documents", loaded.documentsByEntity());
      body.figure("loadSeconds", round(loaded.seconds()), Unit.SECONDS);
      body.figure("loadFlushSecondsSummedOverPartitions", round(loaded.flushSeconds()), Unit.SECONDS);
      body.figure("documentsPerSecond", Math.round(loaded.documentsPerSecond()), Unit.PER_SECOND);
      System.out.printf("loaded %,d documents in %.1f s (%,.0f/s; %.1f s in bulks, summed over partitions)%n",
          loaded.documents(), loaded.seconds(), loaded.documentsPerSecond(), loaded.flushSeconds());
      body.merge(measure(node.url(), settings, runs));
    }
    return report;
  }

  /**
   * The benchmarks' embedded store, given 10 minutes to turn green: on a machine shared with other builds it has
   * taken longer than the default 90 s.
   */
  static EmbeddedSearchStore.Settings patientStore(Path root) {
    EmbeddedSearchStore.Settings s = EmbeddedStores.settings(root);
    return new EmbeddedSearchStore.Settings(s.engine(), s.httpPort(), s.transportPort(), s.heapMegabytes(),
        java.time.Duration.ofMinutes(10), s.stopTimeout(), s.classpath(), s.javaHome(), s.niceness(), s.jvmOptions(),
        s.watermarks(), s.restart());
  }

  /** The total-items cap of the second web app, whose reads are reported beside the product's defaults. */
  static final int CAPPED_TOTALS = 10_000;

  /**
   * The reads through two web apps on the same store, side by side: one at the product's defaults ({@code byQuery})
   * and one counting a page's total up to {@link #CAPPED_TOTALS} ({@code flowpipe.webapp.search.total-items-cap},
   * {@code byQueryTotalItemsCap}), each query sent to both in turn, the first of the two alternating by round, so
   * the machine's load falls on both alike.
   */
  private static Section measure(String storeUrl, FixtureSettings settings, int runs) throws Exception {
    try (ConfigurableApplicationContext context = webapp(storeUrl);
        ConfigurableApplicationContext cappedContext = webapp(storeUrl,
            "--flowpipe.webapp.search.total-items-cap=" + CAPPED_TOTALS)) {
      ScaleQueries client = new ScaleQueries(base(context));
      ScaleQueries cappedClient = new ScaleQueries(base(cappedContext));
      List<String> processes = new ArrayList<>();
      List<Long> definitionKeys = new ArrayList<>();
      for (JsonNode definition : client.post("/v2/process-definitions/search",
          "{\"sort\": [{\"field\": \"processDefinitionKey\"}], \"page\": {\"limit\": 10000}}").path("items")) {
        definitionKeys.add(definition.path("processDefinitionKey").asLong());
        if (!processes.contains(definition.path("processDefinitionId").asText())) {
          processes.add(definition.path("processDefinitionId").asText());
        }
      }
      List<Long> instanceKeys = new ArrayList<>();
      for (JsonNode instance : client.post("/v2/process-instances/search",
          "{\"sort\": [{\"field\": \"startDate\"}], \"page\": {\"limit\": 10000}}").path("items")) {
        instanceKeys.add(instance.path("processInstanceKey").asLong());
      }
      java.util.Collections.shuffle(instanceKeys, new java.util.Random(7));
      int spanDays = (int) Math.max(1, settings.span().toDays() - 7);
      List<ScaleQueries.Query> queries = client.all(processes, definitionKeys, instanceKeys, settings.instances(), settings.firstStart(),
          spanDays);
      Section report = new Section();
      report.typed("completeness", ScaleCompleteness.check(client, settings, processes, definitionKeys));
      report.figure("totalItemsCap", context.getBean(WebappProperties.class).search().totalItemsCap(), Unit.NONE);
      report.figure("secondWebappTotalItemsCap", CAPPED_TOTALS, Unit.NONE);
      int warmup = Math.max(20, runs / 5);
      report.text("loadAverageBeforeMeasuring", loadAverage());
      for (int i = 0; i < warmup; i++) {
        for (ScaleQueries.Query query : queries) {
          client.send(query.request().apply(i));
          cappedClient.send(cappedClient.request(query.request().apply(i)));
        }
      }
      Map<String, Histogram> byQuery = new LinkedHashMap<>();
      Map<String, Histogram> cappedByQuery = new LinkedHashMap<>();
      queries.forEach(q -> byQuery.put(q.name(), new Histogram(60_000_000L, 3)));
      queries.forEach(q -> cappedByQuery.put(q.name(), new Histogram(60_000_000L, 3)));
      long started = System.nanoTime();
      for (int i = 0; i < runs; i++) {
        for (ScaleQueries.Query query : queries) {
          var request = query.request().apply(warmup + i);
          var cappedRequest = cappedClient.request(request);
          if (i % 2 == 0) {
            byQuery.get(query.name()).recordValue(timedMicros(client, request));
            cappedByQuery.get(query.name()).recordValue(timedMicros(cappedClient, cappedRequest));
          } else {
            cappedByQuery.get(query.name()).recordValue(timedMicros(cappedClient, cappedRequest));
            byQuery.get(query.name()).recordValue(timedMicros(client, request));
          }
        }
      }
      report.text("loadAverageAfterMeasuring", loadAverage());
      report.figure("measureSeconds", round((System.nanoTime() - started) / 1e9), Unit.SECONDS);
      report.figure("runsPerQuery", runs, Unit.NONE);
      report.figure("warmUpRunsPerQuery", warmup, Unit.NONE);
      Section results = report.section("byQuery");
      byQuery.forEach((name, histogram) -> results.section(name, millis(histogram)));
      Section cappedResults = report.section("byQueryTotalItemsCap");
      cappedByQuery.forEach((name, histogram) -> cappedResults.section(name, millis(histogram)));
      return report;
    }
  }

  private static ConfigurableApplicationContext webapp(String storeUrl, String... more) {
    SpringApplication application = new SpringApplication(WebappApplication.class);
    application.setDefaultProperties(WebappApplication.DEFAULTS);
    List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--flowpipe.store.url=" + storeUrl,
        "--flowpipe.store.index-prefix=" + PREFIX));
    arguments.addAll(List.of(more));
    return application.run(arguments.toArray(String[]::new));
  }

  private static String base(ConfigurableApplicationContext context) {
    return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
  }

  private static long timedMicros(ScaleQueries client, java.net.http.HttpRequest request) throws Exception {
    long start = System.nanoTime();
    client.send(request);
    return (System.nanoTime() - start) / 1_000;
  }

  private static Section millis(Histogram histogram) {
    return new Section().figure("count", histogram.getTotalCount(), Unit.NONE)
        .figure("p50Ms", histogram.getValueAtPercentile(50) / 1000.0, Unit.MILLIS)
        .figure("p99Ms", histogram.getValueAtPercentile(99) / 1000.0, Unit.MILLIS)
        .figure("maxMs", histogram.getMaxValue() / 1000.0, Unit.MILLIS);
  }

  /** The machine's load average (1, 5, 15 minutes), as {@code uptime} shows it. */
  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (java.io.IOException e) {
      return "unknown: " + e.getMessage();
    }
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }
}
