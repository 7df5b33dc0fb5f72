package dev.flowpipe.webapp.heatmap;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** The duration heat map's numbers: p50/p95 per element of a process definition over a window (a search: readers may). */
@RestController
public class HeatmapController {

  private final ElementDurations durations;

  public HeatmapController(ElementDurations durations) {
    this.durations = durations;
  }

  @PostMapping(path = "/v2/process-definitions/{processDefinitionKey}/statistics/element-durations",
      produces = MediaType.APPLICATION_JSON_VALUE)
  public Map<String, Object> elementDurations(@PathVariable String processDefinitionKey,
      @RequestBody(required = false) JsonNode request) {
    return durations.of(processDefinitionKey, request);
  }
}
