package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Statistics in the shapes of Camunda's REST API v2: active instances per process (with and without incidents), and
 * per-element counts of a process definition's element instances and of one process instance's; (8.9) active
 * instances of a process per version, and active instances with incidents per error and per definition. The
 * {@code POST}s are searches: readers may use them.
 */
@RestController
@RequestMapping(path = "/v2", produces = MediaType.APPLICATION_JSON_VALUE)
public class StatisticsController {

  private final ElementStatistics elements;
  private final ProcessStatistics processes;
  private final VersionStatistics versions;
  private final IncidentStatistics incidents;

  public StatisticsController(ElementStatistics elements, ProcessStatistics processes, VersionStatistics versions,
      IncidentStatistics incidents) {
    this.elements = elements;
    this.processes = processes;
    this.versions = versions;
    this.incidents = incidents;
  }

  @PostMapping("/process-definitions/statistics/process-instances-by-version")
  public Map<String, Object> processInstancesByVersion(@RequestBody(required = false) JsonNode request) {
    return versions.byVersion(request);
  }

  @PostMapping("/incidents/statistics/process-instances-by-error")
  public Map<String, Object> incidentsByError(@RequestBody(required = false) JsonNode request) {
    return incidents.byError(request);
  }

  @PostMapping("/incidents/statistics/process-instances-by-definition")
  public Map<String, Object> incidentsByDefinition(@RequestBody(required = false) JsonNode request) {
    return incidents.byDefinition(request);
  }

  @PostMapping("/process-definitions/statistics/process-instances")
  public java.util.concurrent.CompletableFuture<Map<String, Object>> processInstances(
      @RequestBody(required = false) JsonNode request) {
    return processes.activeInstances(request);
  }

  @PostMapping("/process-definitions/{processDefinitionKey}/statistics/element-instances")
  public java.util.concurrent.CompletableFuture<Map<String, Object>> processDefinitionElements(
      @PathVariable String processDefinitionKey, @RequestBody(required = false) JsonNode request) {
    return elements.ofProcessDefinition(processDefinitionKey, request).thenApply(items -> Map.of("items", items));
  }

  @GetMapping("/process-instances/{processInstanceKey}/statistics/element-instances")
  public Map<String, Object> processInstanceElements(@PathVariable String processInstanceKey) {
    return Map.of("items", elements.ofProcessInstance(processInstanceKey));
  }
}
