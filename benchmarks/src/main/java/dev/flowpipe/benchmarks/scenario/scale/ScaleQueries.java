package dev.flowpipe.benchmarks.scenario.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Every kind of request the UI and the API send to read the read model, as the web app's HTTP API takes them: lists
 * with each filter and each sort, deep paging by cursor and by offset, the dashboard, per-element statistics, the
 * incident views, the 8.9 statistics, one instance's pages. Each is a function of the run's number, so repeated runs
 * spread over processes, versions and instances.
 */
final class ScaleQueries {

  /** One kind of request: a name and, for the i-th run, the request. */
  record Query(String name, IntFunction<HttpRequest> request) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newHttpClient();
  private final String base;

  ScaleQueries(String base) {
    this.base = base;
  }

  /**
   * The queries over a read model of these processes, definitions and instances, whose instances started from
   * {@code firstStart} over {@code spanDays}.
   */
  List<Query> all(List<String> processes, List<Long> definitionKeys, List<Long> instanceKeys, long instanceCount,
      Instant firstStart, int spanDays) throws Exception {
    String newestFirst = "\"sort\": [{\"field\": \"startDate\", \"order\": \"desc\"}], \"page\": {\"limit\": 50}";
    int deepPages = (int) Math.max(1, Math.min(200, instanceCount / 50 - 1));
    String deepCursor = cursorAfterPages("{\"sort\": [{\"field\": \"startDate\", \"order\": \"desc\"}], ", deepPages);
    long errorHash = post("/v2/incidents/statistics/process-instances-by-error", "{}").path("items").path(0)
        .path("errorHashCode").asLong();
    List<Query> queries = new ArrayList<>();
    queries.add(search("list: all, newest first, 50", "process-instances", i -> "{" + newestFirst + "}"));
    queries.add(search("filter: state ACTIVE", "process-instances",
        i -> "{\"filter\": {\"state\": \"ACTIVE\"}, " + newestFirst + "}"));
    queries.add(search("filter: state COMPLETED", "process-instances",
        i -> "{\"filter\": {\"state\": \"COMPLETED\"}, " + newestFirst + "}"));
    queries.add(search("filter: process id and ACTIVE", "process-instances",
        i -> "{\"filter\": {\"processDefinitionId\": \"" + processes.get(i % processes.size())
            + "\", \"state\": \"ACTIVE\"}, " + newestFirst + "}"));
    queries.add(search("filter: hasIncident", "process-instances",
        i -> "{\"filter\": {\"hasIncident\": true}, " + newestFirst + "}"));
    queries.add(search("filter: processDefinitionKey", "process-instances",
        i -> "{\"filter\": {\"processDefinitionKey\": \"" + definitionKeys.get(i % definitionKeys.size()) + "\"}, "
            + newestFirst + "}"));
    queries.add(search("filter: version $in", "process-instances",
        i -> "{\"filter\": {\"processDefinitionId\": \"" + processes.get(i % processes.size())
            + "\", \"processDefinitionVersion\": {\"$in\": [1, 2]}}, " + newestFirst + "}"));
    queries.add(search("filter: start date, a week", "process-instances",
        i -> "{\"filter\": {\"startDate\": {\"$gte\": \"" + firstStart.plus(i % spanDays, ChronoUnit.DAYS)
            + "\", \"$lt\": \"" + firstStart.plus(i % spanDays + 7, ChronoUnit.DAYS) + "\"}}, " + newestFirst + "}"));
    queries.add(search("filter: end date, a day, COMPLETED", "process-instances",
        i -> "{\"filter\": {\"state\": \"COMPLETED\", \"endDate\": {\"$gte\": \""
            + firstStart.plus(i % spanDays, ChronoUnit.DAYS) + "\", \"$lt\": \""
            + firstStart.plus(i % spanDays + 1, ChronoUnit.DAYS) + "\"}}, " + newestFirst + "}"));
    queries.add(search("filter: instance key $in 10", "process-instances",
        i -> "{\"filter\": {\"processInstanceKey\": {\"$in\": [" + keys(instanceKeys, i, 10) + "]}}}"));
    // the variable filter (issue 34: the filter Operate users use most), one term on the instance document each
    queries.add(search("filter: variable name and value", "process-instances",
        i -> "{\"filter\": {\"variables\": [" + customer(i) + "]}, " + newestFirst + "}"));
    queries.add(search("filter: variable value $in 10", "process-instances",
        i -> "{\"filter\": {\"variables\": [{\"name\": \"customerId\", \"value\": {\"$in\": ["
            + customerValues(i, 10) + "]}}]}, " + newestFirst + "}"));
    queries.add(search("filter: two variables and ACTIVE", "process-instances",
        i -> "{\"filter\": {\"state\": \"ACTIVE\", \"variables\": [" + customer(i)
            + ", {\"name\": \"country\", \"value\": \"\\\"DE\\\"\"}]}, " + newestFirst + "}"));
    for (String sort : List.of("startDate", "endDate", "processInstanceKey", "state", "processDefinitionId")) {
      queries.add(search("sort: " + sort + (sort.equals("processInstanceKey") ? " asc" : " desc"),
          "process-instances", i -> "{\"sort\": [{\"field\": \"" + sort + "\", \"order\": \""
              + (sort.equals("processInstanceKey") ? "asc" : "desc") + "\"}], \"page\": {\"limit\": 50}}"));
    }
    queries.add(search("page: by cursor after " + deepPages + " pages of 50", "process-instances",
        i -> "{\"sort\": [{\"field\": \"startDate\", \"order\": \"desc\"}], \"page\": {\"limit\": 50, \"after\": \""
            + deepCursor + "\"}}"));
    queries.add(search("page: offset from 5,000", "process-instances",
        i -> "{\"sort\": [{\"field\": \"processInstanceKey\"}], \"page\": {\"from\": 5000, \"limit\": 50}}"));
    queries.add(search("count: ACTIVE (limit 0)", "process-instances",
        i -> "{\"filter\": {\"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}}"));
    queries.add(post("dashboard: active instances per process", "/v2/process-definitions/statistics/process-instances",
        i -> "{}"));
    // what the UI's dashboard asks on each refresh: every process with active instances, up to 10,000
    queries.add(post("dashboard: the UI's page of 10,000", "/v2/process-definitions/statistics/process-instances",
        i -> "{\"sort\": [{\"field\": \"processDefinitionId\"}], \"page\": {\"limit\": 10000}}"));
    queries.add(postTo("per-element statistics of a definition", i -> "{}",
        i -> "/v2/process-definitions/" + definitionKeys.get(i % definitionKeys.size())
            + "/statistics/element-instances"));
    queries.add(post("8.9: active instances by version", "/v2/process-definitions/statistics/process-instances-by-version",
        i -> "{\"filter\": {\"processDefinitionId\": \"" + processes.get(i % processes.size()) + "\"}}"));
    queries.add(post("8.9: incidents by error", "/v2/incidents/statistics/process-instances-by-error", i -> "{}"));
    queries.add(post("8.9: incidents of an error by definition",
        "/v2/incidents/statistics/process-instances-by-definition",
        i -> "{\"filter\": {\"errorHashCode\": " + errorHash + "}}"));
    queries.add(search("incidents: ACTIVE, newest first", "incidents",
        i -> "{\"filter\": {\"state\": \"ACTIVE\"}, \"sort\": [{\"field\": \"creationTime\", \"order\": \"desc\"}], "
            + "\"page\": {\"limit\": 50}}"));
    queries.add(search("incidents: of a process", "incidents",
        i -> "{\"filter\": {\"processDefinitionId\": \"" + processes.get(i % processes.size()) + "\"}, "
            + "\"page\": {\"limit\": 50}}"));
    queries.add(search("process definitions: list, 50", "process-definitions",
        i -> "{\"sort\": [{\"field\": \"name\", \"order\": \"asc\"}], \"page\": {\"limit\": 50}}"));
    queries.add(search("process definitions: latest versions, 50", "process-definitions",
        i -> "{\"filter\": {\"isLatestVersion\": true}, \"sort\": [{\"field\": \"processDefinitionId\"}], "
            + "\"page\": {\"limit\": 50}}"));
    queries.add(search("process definitions: versions of a process", "process-definitions",
        i -> "{\"filter\": {\"processDefinitionId\": \"" + processes.get(i % processes.size()) + "\"}, "
            + "\"sort\": [{\"field\": \"version\", \"order\": \"desc\"}], \"page\": {\"limit\": 50}}"));
    queries.add(get("instance: by key", i -> "/v2/process-instances/" + instanceKeys.get(i % instanceKeys.size())));
    queries.add(search("instance: element instances", "element-instances",
        i -> "{\"filter\": {\"processInstanceKey\": \"" + instanceKeys.get(i % instanceKeys.size()) + "\"}}"));
    queries.add(search("instance: variables", "variables",
        i -> "{\"filter\": {\"processInstanceKey\": \"" + instanceKeys.get(i % instanceKeys.size()) + "\"}, "
            + "\"page\": {\"limit\": 50}}"));
    queries.add(search("instance: jobs", "jobs",
        i -> "{\"filter\": {\"processInstanceKey\": \"" + instanceKeys.get(i % instanceKeys.size()) + "\"}}"));
    queries.add(get("instance: sequence flows",
        i -> "/v2/process-instances/" + instanceKeys.get(i % instanceKeys.size()) + "/sequence-flows"));
    queries.add(get("instance: per-element statistics",
        i -> "/v2/process-instances/" + instanceKeys.get(i % instanceKeys.size()) + "/statistics/element-instances"));
    queries.add(search("variables: by name and value", "variables",
        i -> "{\"filter\": {\"name\": \"customerId\", \"value\": \"\\\"c-" + (i % 50_000) + "\\\"\"}, "
            + "\"page\": {\"limit\": 50}}"));
    return queries;
  }

  /** The {@code i}-th run's variable filter item: a customer the fixture gave one instance in 50,000. */
  static String customer(int i) {
    return "{\"name\": \"customerId\", \"value\": \"\\\"c-" + (i % 50_000) + "\\\"\"}";
  }

  private static String customerValues(int i, int count) {
    List<String> values = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      values.add("\"\\\"c-" + ((i * count + k) % 50_000) + "\\\"\"");
    }
    return String.join(", ", values);
  }

  /** Sends, checks the status and parses the answer (parsing is part of what a client waits for). */
  JsonNode send(HttpRequest request) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(request.uri() + " answered " + response.statusCode() + ": " + response.body());
    }
    return JSON.readTree(response.body());
  }

  JsonNode post(String path, String body) throws IOException, InterruptedException {
    return send(request(path, body));
  }

  private String cursorAfterPages(String sortAndOpen, int pages) throws Exception {
    String cursor = null;
    for (int p = 0; p < pages; p++) {
      String page = cursor == null ? "{\"limit\": 50}" : "{\"limit\": 50, \"after\": \"" + cursor + "\"}";
      cursor = post("/v2/process-instances/search", sortAndOpen + "\"page\": " + page + "}").path("page")
          .path("endCursor").asText();
    }
    return cursor;
  }

  private static String keys(List<Long> keys, int i, int count) {
    List<String> some = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      some.add("\"" + keys.get((i * count + k) % keys.size()) + "\"");
    }
    return String.join(", ", some);
  }

  private Query search(String name, String entity, IntFunction<String> body) {
    return post(name, "/v2/" + entity + "/search", body);
  }

  private Query post(String name, String path, IntFunction<String> body) {
    return postTo(name, body, i -> path);
  }

  private Query postTo(String name, IntFunction<String> body, IntFunction<String> path) {
    return new Query(name, i -> request(path.apply(i), body.apply(i)));
  }

  private Query get(String name, IntFunction<String> path) {
    return new Query(name, i -> HttpRequest.newBuilder(URI.create(base + path.apply(i))).GET().build());
  }

  /** The same request (method, headers, body) sent to this client's web app. */
  HttpRequest request(HttpRequest other) {
    URI uri = other.uri();
    String path = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    return HttpRequest.newBuilder(other, (name, value) -> true).uri(URI.create(base + path)).build();
  }

  private HttpRequest request(String path, String body) {
    return HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
  }
}
