package dev.flowpipe.benchmarks.scenario.operations;

import dev.flowpipe.benchmarks.scenario.operations.RefreshRequests.ApiCall;
import java.util.ArrayList;
import java.util.List;

/**
 * The API calls of one refresh of the UI's dashboard and process page, now ({@code webapp/src/main/frontend/app.js})
 * and before the per-element statistics (the UI of {@code f53255d^}: three searches per element every 3 s, two per
 * process on the dashboard), written out from those sources.
 */
public final class UiPageCalls {

  /** The old UI's refresh interval (its {@code refreshMillis} before {@code /ui/config} answered otherwise). */
  public static final double OLD_REFRESH_SECONDS = 3;
  /** The UI's refresh interval now ({@code flowpipe.webapp.ui.refresh-interval}'s default). */
  public static final double NEW_REFRESH_SECONDS = 1;

  private static final String DEFINITIONS = "{\"sort\": [{\"field\": \"processDefinitionId\"}, {\"field\": \"version\","
      + " \"order\": \"desc\"}], \"page\": {\"limit\": 1000}}";

  private UiPageCalls() {}

  private static ApiCall search(String entity, String body) {
    return new ApiCall("POST", "/v2/" + entity + "/search", body);
  }

  /** The definitions, and the active instances counted per process. */
  public static List<ApiCall> dashboardNow() {
    return List.of(search("process-definitions", DEFINITIONS),
        new ApiCall("POST", "/v2/process-definitions/statistics/process-instances", "{\"page\": {\"limit\": 10000}}"));
  }

  /** The definitions, then per process (latest version) its active instances and open incidents, counted. */
  public static List<ApiCall> dashboardOld(List<String> processIds) {
    List<ApiCall> calls = new ArrayList<>(List.of(search("process-definitions", DEFINITIONS)));
    for (String id : processIds) {
      String filter = "{\"filter\": {\"processDefinitionId\": \"" + id + "\", \"state\": \"ACTIVE\"},"
          + " \"page\": {\"limit\": 0}}";
      calls.add(search("process-instances", filter));
      calls.add(search("incidents", filter));
    }
    return calls;
  }

  /** The running instances counted, and the per-element counts in one request (the definition is read once). */
  public static List<ApiCall> processNow(long definitionKey) {
    return List.of(search("process-instances", "{\"filter\": {\"processDefinitionKey\": \"" + definitionKey
            + "\", \"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}}"),
        new ApiCall("POST", "/v2/process-definitions/" + definitionKey + "/statistics/element-instances", "{}"));
  }

  /**
   * The definition, its running instances and open incidents counted, then for each element of the diagram (bpmn-js's
   * shapes without labels, the process and sequence flows: the flow nodes) three counts: active without incident,
   * completed, active with incident.
   */
  public static List<ApiCall> processOld(long definitionKey, List<String> elementIds) {
    String byDefinition = "{\"filter\": {\"processDefinitionKey\": \"" + definitionKey + "\", \"state\": \"ACTIVE\"},"
        + " \"page\": {\"limit\": 0}}";
    List<ApiCall> calls = new ArrayList<>(List.of(new ApiCall("GET", "/v2/process-definitions/" + definitionKey, null),
        search("process-instances", byDefinition), search("incidents", byDefinition)));
    for (String element : elementIds) {
      String prefix = "{\"filter\": {\"processDefinitionKey\": \"" + definitionKey + "\", \"elementId\": \"" + element
          + "\", ";
      calls.add(search("element-instances", prefix + "\"state\": \"ACTIVE\", \"incidentKey\": {\"$exists\": false}},"
          + " \"page\": {\"limit\": 0}}"));
      calls.add(search("element-instances", prefix + "\"state\": \"COMPLETED\"}, \"page\": {\"limit\": 0}}"));
      calls.add(search("element-instances", prefix + "\"state\": \"ACTIVE\", \"incidentKey\": {\"$exists\": true}},"
          + " \"page\": {\"limit\": 0}}"));
    }
    return calls;
  }

  /** The header's importer badge, read from the node's health at every refresh interval (new since the old UI). */
  public static List<ApiCall> headerNow() {
    return List.of(new ApiCall("GET", "/actuator/health", null));
  }
}
