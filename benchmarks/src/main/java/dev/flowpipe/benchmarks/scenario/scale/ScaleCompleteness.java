package dev.flowpipe.benchmarks.scenario.scale;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.benchmarks.fixture.FixtureSettings;
import java.util.ArrayList;
import java.util.List;

/**
 * Every aggregation the web app answers, held against plain counts of the same documents (a search's
 * {@code totalItems}, which no aggregation size can cut): an aggregation with a fixed size that drops versions,
 * processes or elements shows here as a total that does not add up.
 */
final class ScaleCompleteness {

  /**
   * Errors, and definitions of the first error, whose counts are checked one by one against a plain count each (the
   * fixture has one error in every definition; a real read model may have thousands of either).
   */
  private static final int CHECKED_ONE_BY_ONE = 20;

  private ScaleCompleteness() {}

  /**
   * One aggregation against its plain count.
   *
   * @param check what was compared
   * @param expected the plain count
   * @param answered what the aggregation answered
   * @param complete whether the two agree
   */
  record Check(String check, long expected, long answered, boolean complete) {}

  static List<Check> check(ScaleQueries client, FixtureSettings settings, List<String> processes,
      List<Long> definitionKeys) throws Exception {
    List<Check> checks = new ArrayList<>();
    long definitions = total(client, "process-definitions", "{}");
    checks.add(check("process definitions listed", (long) settings.definitions() * settings.versions(), definitions));
    // one latest definition per process (the fixture deploys every process in one tenant)
    checks.add(check("process definitions: latest versions, one per process", settings.definitions(),
        total(client, "process-definitions", "{\"filter\": {\"isLatestVersion\": true}}")));
    long active = total(client, "process-instances", "{\"filter\": {\"state\": \"ACTIVE\"}}");
    JsonNode dashboard = client.post("/v2/process-definitions/statistics/process-instances",
        "{\"page\": {\"limit\": 10000}}");
    checks.add(check("dashboard: active instances summed over its processes", active,
        sum(dashboard, "activeInstancesWithoutIncidentCount", "activeInstancesWithIncidentCount")));
    // the processes the fixture gave an instance that is still active (waiting or with an incident): by construction
    java.util.Set<Long> withActive = new java.util.HashSet<>();
    for (long n = 0; n < settings.instances(); n++) {
      FixtureSettings.InstanceEnd end = settings.end(n);
      if (end == FixtureSettings.InstanceEnd.ACTIVE || end == FixtureSettings.InstanceEnd.INCIDENT) {
        withActive.add(n % settings.definitions());
      }
    }
    long processesWithActive = withActive.size();
    checks.add(check("dashboard: processes with active instances", processesWithActive,
        dashboard.path("page").path("totalItems").asLong()));
    long named = 0;
    long multipleVersions = 0;
    for (JsonNode item : dashboard.path("items")) {
      named += item.path("latestProcessDefinitionName").isTextual() ? 1 : 0;
      multipleVersions += item.path("hasMultipleVersions").asBoolean() ? 1 : 0;
    }
    long dashboardItems = dashboard.path("items").size();
    checks.add(check("dashboard: processes with their latest definition's name", dashboardItems, named));
    checks.add(check("dashboard: processes with more than one version (every process has " + settings.versions()
        + ")", settings.versions() > 1 ? dashboardItems : 0, multipleVersions));
    String process = processes.getFirst();
    JsonNode byVersion = client.post("/v2/process-definitions/statistics/process-instances-by-version",
        "{\"filter\": {\"processDefinitionId\": \"" + process + "\"}, \"page\": {\"limit\": 10000}}");
    checks.add(check("8.9 by version: active instances of " + process + " summed over its versions",
        total(client, "process-instances",
            "{\"filter\": {\"processDefinitionId\": \"" + process + "\", \"state\": \"ACTIVE\"}}"),
        sum(byVersion, "activeInstancesWithoutIncidentCount", "activeInstancesWithIncidentCount")));
    long key = definitionKeys.getFirst();
    JsonNode elements = client.post("/v2/process-definitions/" + key + "/statistics/element-instances", "{}");
    checks.add(check("per-element statistics of definition " + key + ": element instances summed",
        total(client, "element-instances", "{\"filter\": {\"processDefinitionKey\": \"" + key + "\"}}"),
        sum(elements, "active", "incidents", "completed", "canceled")));
    JsonNode byError = client.post("/v2/incidents/statistics/process-instances-by-error",
        "{\"page\": {\"limit\": 10000}}");
    checks.add(check("8.9 by error: instances with an active incident summed over errors",
        total(client, "process-instances", "{\"filter\": {\"state\": \"ACTIVE\", \"hasIncident\": true}}"),
        sum(byError, "activeInstancesWithErrorCount")));
    // each error's count, and the first error's per definition, against a plain count of the active instances holding
    // its hash, exactly (a distinct-count sketch counted 20,005 for 20,000 here at a million); the check above, against
    // the incident flag, is the one that does not read the hash codes the statistics count
    List<JsonNode> errors = first(byError.path("items"));
    for (JsonNode error : errors) {
      long hash = error.path("errorHashCode").asLong();
      checks.add(check("8.9 by error: active instances with error " + hash,
          total(client, "process-instances", "{\"filter\": {" + withError(hash) + "}}"),
          error.path("activeInstancesWithErrorCount").asLong()));
    }
    if (!errors.isEmpty()) {
      long hash = errors.getFirst().path("errorHashCode").asLong();
      JsonNode byDefinition = client.post("/v2/incidents/statistics/process-instances-by-definition",
          "{\"filter\": {\"errorHashCode\": " + hash + "}, \"page\": {\"limit\": 10000}}");
      checks.add(check("8.9 by definition: active instances with error " + hash + " summed over its definitions",
          total(client, "process-instances", "{\"filter\": {" + withError(hash) + "}}"),
          sum(byDefinition, "activeInstancesWithErrorCount")));
      for (JsonNode definition : first(byDefinition.path("items"))) {
        String of = definition.path("processDefinitionKey").asText();
        checks.add(check("8.9 by definition: active instances of definition " + of + " with error " + hash,
            total(client, "process-instances",
                "{\"filter\": {" + withError(hash) + ", \"processDefinitionKey\": \"" + of + "\"}}"),
            definition.path("activeInstancesWithErrorCount").asLong()));
      }
    }
    // the variable filter on instances against the variable documents themselves (one customerId per instance)
    checks.add(check("variable filter: instances of customer c-7 against its customerId variables",
        total(client, "variables", "{\"filter\": {\"name\": \"customerId\", \"value\": \"\\\"c-7\\\"\"}}"),
        total(client, "process-instances", "{\"filter\": {\"variables\": [" + ScaleQueries.customer(7) + "]}}")));
    checks.forEach(c -> System.out.println("completeness: " + c));
    return checks;
  }

  private static long total(ScaleQueries client, String entity, String body) throws Exception {
    String counted = body.substring(0, body.lastIndexOf('}')) + (body.equals("{}") ? "" : ", ")
        + "\"page\": {\"limit\": 0}}";
    JsonNode page = client.post("/v2/" + entity + "/search", counted).path("page");
    if (page.path("hasMoreTotalItems").asBoolean(false)) {
      throw new IllegalStateException(entity + " " + body + ": totalItems is a lower bound, not a count");
    }
    return page.path("totalItems").asLong();
  }

  /** The filter of the active instances with an open incident of this error. */
  private static String withError(long hash) {
    return "\"state\": \"ACTIVE\", \"incidentErrorHashCode\": " + hash;
  }

  /** The first {@link #CHECKED_ONE_BY_ONE} items. */
  private static List<JsonNode> first(JsonNode items) {
    List<JsonNode> first = new ArrayList<>();
    for (int i = 0; i < Math.min(items.size(), CHECKED_ONE_BY_ONE); i++) {
      first.add(items.get(i));
    }
    return first;
  }

  private static long sum(JsonNode answer, String... fields) {
    long sum = 0;
    for (JsonNode item : answer.path("items")) {
      for (String field : fields) {
        sum += item.path(field).asLong();
      }
    }
    return sum;
  }

  private static Check check(String name, long expected, long answered) {
    return new Check(name, expected, answered, expected == answered);
  }
}
