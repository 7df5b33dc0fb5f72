package dev.flowpipe.benchmarks.scenario.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.index.ElementEntries;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.VariableEntries;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.WebappApplication;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Unit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Search latency of the web app's HTTP API over a large read model: instance documents (with element instances,
 * variables and incidents) bulk-loaded through the store port, then representative searches, one at a time from one
 * client thread, each timed from request to parsed answer.
 */
public final class SearchLatency {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "bench";
  private static final String[] PROCESSES = {"order", "payment", "shipping", "refund", "onboarding"};
  private static final String[] TIERS = {"gold", "silver", "bronze", "iron", "wood"};
  private static final Instant START = Instant.parse("2026-10-01T00:00:00Z");

  /** One kind of request: a name and, for the i-th run, the request. */
  private record Query(String name, IntFunction<HttpRequest> request) {}

  private SearchLatency() {}

  /** Loads {@code instances} process instances (and related documents) into the store. Returns the seconds taken. */
  public static double load(SearchStore store, int instances) {
    new SchemaManager(store, PREFIX, "1s").ensureSchema();
    long start = System.nanoTime();
    Random random = new Random(42);
    List<DocumentWrite> batch = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      long key = 2_251_799_813_685_248L + i;
      String process = PROCESSES[i % PROCESSES.length];
      int version = 1 + (i / PROCESSES.length) % 3;
      int stateRoll = random.nextInt(100);
      String state = stateRoll < 30 ? "ACTIVE" : stateRoll < 95 ? "COMPLETED" : "CANCELED";
      boolean incident = "ACTIVE".equals(state) && random.nextInt(100) < 5;
      Instant started = START.plus(i * 26L, ChronoUnit.SECONDS); // spread over about 30 days
      Map<String, Object> doc = new HashMap<>();
      doc.put("key", key);
      doc.put("processDefinitionKey", 1000L + (i % PROCESSES.length) * 10 + version);
      doc.put("bpmnProcessId", process);
      doc.put("version", version);
      doc.put("state", state);
      doc.put("incident", incident);
      doc.put("startDate", started.toString());
      if (!"ACTIVE".equals(state)) {
        doc.put("endDate", started.plus(random.nextInt(3600), ChronoUnit.SECONDS).toString());
      }
      doc.put("tenantId", "<default>");
      doc.put("partitionId", 1);
      // the terms of the filters on other entities, as the writer keeps them (ADR 15): two variables (orderId unique,
      // tier one of five), the task's element instance, the open incident's message
      String elementState = incident || "ACTIVE".equals(state) ? "ACTIVE" : "COMPLETED";
      doc.put(VariableEntries.FIELD, List.of(VariableEntries.entry("orderId", "\"o-" + i + "\""),
          VariableEntries.entry("tier", "\"" + TIERS[i % TIERS.length] + "\"")));
      doc.put(ElementEntries.FIELD, ElementEntries.combinations("task", elementState, incident));
      if (incident) {
        doc.put(ElementEntries.INCIDENT_ERROR_MESSAGES, List.of("no retries left"));
      }
      batch.add(new DocumentWrite(ReadModelIndex.PROCESS_INSTANCE.indexName(PREFIX), String.valueOf(key), i + 1, doc));
      long elementKey = key + 10_000_000L;
      batch.add(new DocumentWrite(ReadModelIndex.FLOW_NODE_INSTANCE.indexName(PREFIX), String.valueOf(elementKey), i + 1,
          Map.of("key", elementKey, "processInstanceKey", key, "processDefinitionKey", doc.get("processDefinitionKey"),
              "bpmnProcessId", process, "elementId", "task", "type", "SERVICE_TASK", "state", incident || "ACTIVE".equals(state) ? "ACTIVE" : "COMPLETED",
              "startDate", started.toString(), "partitionId", 1)));
      long variableKey = key + 20_000_000L;
      batch.add(new DocumentWrite(ReadModelIndex.VARIABLE.indexName(PREFIX), String.valueOf(variableKey), i + 1,
          Map.of("key", variableKey, "scopeKey", key, "processInstanceKey", key, "name", "orderId",
              "value", "\"o-" + i + "\"", "truncated", false, "partitionId", 1)));
      if (incident) {
        long incidentKey = key + 30_000_000L;
        batch.add(new DocumentWrite(ReadModelIndex.INCIDENT.indexName(PREFIX), String.valueOf(incidentKey), i + 1,
            Map.of("key", incidentKey, "processInstanceKey", key, "bpmnProcessId", process, "elementInstanceKey", elementKey,
                "elementId", "task", "errorType", "JOB_NO_RETRIES", "errorMessage", "no retries left", "state", "ACTIVE",
                "creationTime", started.toString(), "partitionId", 1)));
      }
      if (batch.size() >= 5_000) {
        write(store, batch);
      }
    }
    write(store, batch);
    for (ReadModelIndex index : ReadModelIndex.values()) {
      store.refresh(index.indexName(PREFIX));
    }
    return (System.nanoTime() - start) / 1e9;
  }

  private static void write(SearchStore store, List<DocumentWrite> batch) {
    var outcome = store.bulk(batch);
    if (!outcome.failures().isEmpty()) {
      throw new IllegalStateException("bulk failed: " + outcome.failures().getFirst());
    }
    batch.clear();
  }

  /** Starts the standalone web app on the store, runs every query {@code runs} times (after a warm-up), reports. */
  public static Section measure(String storeUrl, int instances, int runs) throws Exception {
    SpringApplication application = new SpringApplication(WebappApplication.class);
    application.setDefaultProperties(WebappApplication.DEFAULTS);
    try (ConfigurableApplicationContext context = application.run(
        "--server.port=0", "--flowpipe.store.url=" + storeUrl, "--flowpipe.store.index-prefix=" + PREFIX)) {
      String base = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
      HttpClient http = HttpClient.newHttpClient();
      long firstKey = 2_251_799_813_685_248L;
      String nextPageCursor = post(http, base + "/v2/process-instances/search",
          "{\"filter\": {\"state\": \"ACTIVE\"}, \"sort\": [{\"field\": \"startDate\", \"order\": \"desc\"}], \"page\": {\"limit\": 50}}")
          .path("page").path("endCursor").asText();
      List<Query> queries = List.of(
          new Query("list: one process, ACTIVE, newest first, 50", i -> search(base, "process-instances",
              "{\"filter\": {\"processDefinitionId\": \"" + PROCESSES[i % PROCESSES.length] + "\", \"state\": \"ACTIVE\"}, "
                  + "\"sort\": [{\"field\": \"startDate\", \"order\": \"desc\"}], \"page\": {\"limit\": 50}}")),
          new Query("list: next page by cursor (after)", i -> search(base, "process-instances",
              "{\"filter\": {\"state\": \"ACTIVE\"}, \"sort\": [{\"field\": \"startDate\", \"order\": \"desc\"}], "
                  + "\"page\": {\"limit\": 50, \"after\": \"" + nextPageCursor + "\"}}")),
          new Query("list: with incident, version, start date range", i -> search(base, "process-instances",
              "{\"filter\": {\"hasIncident\": true, \"processDefinitionVersion\": {\"$in\": [1, 2]}, \"startDate\": {\"$gte\": \""
                  + START.plus(i % 20, ChronoUnit.DAYS) + "\", \"$lt\": \"" + START.plus(i % 20 + 7, ChronoUnit.DAYS) + "\"}}, "
                  + "\"sort\": [{\"field\": \"startDate\", \"order\": \"desc\"}], \"page\": {\"limit\": 50}}")),
          new Query("list: deep offset page (from 5000)", i -> search(base, "process-instances",
              "{\"sort\": [{\"field\": \"processInstanceKey\"}], \"page\": {\"from\": 5000, \"limit\": 50}}")),
          new Query("dashboard count: running per process (limit 0)", i -> search(base, "process-instances",
              "{\"filter\": {\"processDefinitionId\": \"" + PROCESSES[i % PROCESSES.length] + "\", \"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}}")),
          new Query("instance by key (GET)", i -> HttpRequest.newBuilder(
              URI.create(base + "/v2/process-instances/" + (firstKey + (i * 7919L) % instances))).GET().build()),
          new Query("element instances of one instance", i -> search(base, "element-instances",
              "{\"filter\": {\"processInstanceKey\": \"" + (firstKey + (i * 7919L) % instances) + "\"}}")),
          new Query("variables by name prefix ($like)", i -> search(base, "variables",
              "{\"filter\": {\"name\": \"orderId\", \"value\": {\"$like\": \"\\\"o-" + (i % 90 + 10) + "*\"}}, \"page\": {\"limit\": 20}}")),
          // the process-instance filters on other entities (issue 34, ADR 15)
          new Query("instances by a variable: one match (orderId)", i -> search(base, "process-instances",
              "{\"filter\": {\"variables\": [{\"name\": \"orderId\", \"value\": \"\\\"o-" + (i * 7919L) % instances
                  + "\\\"\"}]}, \"page\": {\"limit\": 50}}")),
          new Query("instances by a variable: a fifth match (tier), newest first", i -> search(base, "process-instances",
              "{\"filter\": {\"variables\": [{\"name\": \"tier\", \"value\": \"\\\"" + TIERS[i % TIERS.length]
                  + "\\\"\"}]}, \"sort\": [{\"field\": \"startDate\", \"order\": \"desc\"}], \"page\": {\"limit\": 50}}")),
          new Query("instances by a variable $like and a process", i -> search(base, "process-instances",
              "{\"filter\": {\"processDefinitionId\": \"" + PROCESSES[i % PROCESSES.length] + "\", \"variables\": [{\"name\": "
                  + "\"orderId\", \"value\": {\"$like\": \"\\\"o-" + (i % 90 + 10) + "*\"}}]}, \"page\": {\"limit\": 50}}")),
          new Query("instances by element, state and incident", i -> search(base, "process-instances",
              "{\"filter\": {\"elementId\": \"task\", \"elementInstanceState\": \"ACTIVE\", \"hasElementInstanceIncident\": "
                  + (i % 2 == 0) + "}, \"sort\": [{\"field\": \"startDate\", \"order\": \"desc\"}], \"page\": {\"limit\": 50}}")),
          new Query("instances by error message", i -> search(base, "process-instances",
              "{\"filter\": {\"errorMessage\": \"no retries left\"}, \"page\": {\"limit\": 50}}")));
      int warmup = Math.max(50, runs / 5);
      for (int i = 0; i < warmup; i++) {
        for (Query query : queries) {
          send(http, query.request().apply(i));
        }
      }
      Map<String, Histogram> byQuery = new LinkedHashMap<>();
      Histogram all = new Histogram(60_000_000L, 3);
      queries.forEach(q -> byQuery.put(q.name(), new Histogram(60_000_000L, 3)));
      for (int i = 0; i < runs; i++) {
        for (Query query : queries) {
          HttpRequest request = query.request().apply(warmup + i);
          long start = System.nanoTime();
          send(http, request);
          long micros = (System.nanoTime() - start) / 1_000;
          byQuery.get(query.name()).recordValue(micros);
          all.recordValue(micros);
        }
      }
      Section report = new Section().section("allQueries", millis(all));
      Section results = report.section("byQuery");
      byQuery.forEach((name, histogram) -> results.section(name, millis(histogram)));
      return report;
    }
  }

  /** The histogram holds microseconds; the report gives milliseconds with three decimals. */
  private static Section millis(Histogram histogram) {
    return new Section().figure("count", histogram.getTotalCount())
        .figure("p50Ms", histogram.getValueAtPercentile(50) / 1000.0, Unit.MILLIS)
        .figure("p99Ms", histogram.getValueAtPercentile(99) / 1000.0, Unit.MILLIS)
        .figure("maxMs", histogram.getMaxValue() / 1000.0, Unit.MILLIS);
  }

  private static HttpRequest search(String base, String entity, String body) {
    return HttpRequest.newBuilder(URI.create(base + "/v2/" + entity + "/search")).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
  }

  private static JsonNode post(HttpClient http, String url, String body) throws Exception {
    return JSON.readTree(send(http, HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build()));
  }

  /** Sends, checks the status and parses the answer (parsing is part of what a client waits for). */
  private static String send(HttpClient http, HttpRequest request) throws Exception {
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(request.uri() + " answered " + response.statusCode() + ": " + response.body());
    }
    JSON.readTree(response.body());
    return response.body();
  }
}
