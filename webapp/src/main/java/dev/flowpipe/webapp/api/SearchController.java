package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.webapp.config.SecurityConfiguration;
import dev.flowpipe.webapp.query.Entity;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.ContentDisposition;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The search API: {@code POST /v2/<entity>/search}, {@code GET /v2/<entity>/<key>} and {@code GET
 * /v2/process-definitions/<key>/xml}, for the entities of {@link Entity}; and an instance's sequence flows.
 */
@RestController
@RequestMapping("/v2")
public class SearchController {

  /** The answer header that tells whether a read-your-writes request caught up: {@code reached} or {@code timed-out}. */
  public static final String CONSISTENCY_HEADER = "Flowpipe-Consistency";

  private static final String ENTITIES =
      "{entity:process-definitions|process-instances|element-instances|variables|incidents|jobs"
          + "|decision-definitions|decision-requirements|decision-instances}";

  private final SearchService service;
  private final SequenceFlows sequenceFlows;
  private final CallHierarchy callHierarchy;

  public SearchController(SearchService service, SequenceFlows sequenceFlows, CallHierarchy callHierarchy) {
    this.service = service;
    this.sequenceFlows = sequenceFlows;
    this.callHierarchy = callHierarchy;
  }

  /** The instances from the root down to this one (empty for a root instance), as Camunda answers. */
  @GetMapping(path = "/process-instances/{processInstanceKey}/call-hierarchy",
      produces = MediaType.APPLICATION_JSON_VALUE)
  public List<Map<String, Object>> callHierarchy(@PathVariable String processInstanceKey) {
    return callHierarchy.of(processInstanceKey);
  }

  /** An incident search over the incidents of this instance and of every instance it called (404 for an unknown one). */
  @PostMapping(path = "/process-instances/{processInstanceKey}/incidents/search",
      produces = MediaType.APPLICATION_JSON_VALUE)
  public CompletableFuture<ResponseEntity<SearchAnswer>> incidentsOfInstance(
      @PathVariable String processInstanceKey, @RequestBody(required = false) JsonNode request) {
    return answer(service.searchAsync(Entity.INCIDENTS, request,
        List.of(callHierarchy.instanceAndCalled(processInstanceKey))));
  }

  /** The sequence flows an instance took, each once: {@code {items}}, empty for an instance the read model lacks. */
  @GetMapping(path = "/process-instances/{processInstanceKey}/sequence-flows",
      produces = MediaType.APPLICATION_JSON_VALUE)
  public Map<String, Object> sequenceFlows(@PathVariable String processInstanceKey) {
    return Map.of("items", sequenceFlows.ofProcessInstance(processInstanceKey));
  }

  /** Entities the v2 API searches but has no get by key for. */
  private static final String SEARCHED_ONLY = "{entity:message-subscriptions|correlated-message-subscriptions}";

  @PostMapping(path = {"/" + ENTITIES + "/search", "/" + SEARCHED_ONLY + "/search"},
      produces = MediaType.APPLICATION_JSON_VALUE)
  public CompletableFuture<ResponseEntity<SearchAnswer>> search(
      @PathVariable String entity, @RequestBody(required = false) JsonNode request) {
    return answer(service.searchAsync(entity(entity), request));
  }

  private static CompletableFuture<ResponseEntity<SearchAnswer>> answer(CompletableFuture<SearchAnswer> search) {
    // a consistency wait holds no servlet thread: the answer is written when the future completes
    return search.thenApply(answer -> {
      ResponseEntity.BodyBuilder response = ResponseEntity.ok();
      if (answer.consistency() != null) {
        response.header(CONSISTENCY_HEADER, answer.consistency().reached() ? "reached" : "timed-out");
      }
      return response.body(answer);
    });
  }

  @GetMapping(path = "/" + ENTITIES + "/{key}", produces = MediaType.APPLICATION_JSON_VALUE)
  public Map<String, Object> get(@PathVariable String entity, @PathVariable String key) {
    return service.get(entity(entity), key);
  }

  /**
   * The deployed BPMN as {@code text/xml}, whatever the {@code Accept} (Camunda's 8.8 client asks for JSON here). The
   * text is the deployer's: a browser that opens it gets a download, sandboxed, never a page of this origin that
   * could run an XHTML {@code <script>} hidden in it.
   */
  @GetMapping(path = "/process-definitions/{key}/xml")
  public ResponseEntity<String> processDefinitionXml(@PathVariable String key) {
    return xmlDownload(service.processDefinitionXml(key), key, ".bpmn");
  }

  /** The DMN of a decision definition's DRD, as the BPMN above (text/xml, a sandboxed download). */
  @GetMapping(path = "/decision-definitions/{key}/xml")
  public ResponseEntity<String> decisionDefinitionXml(@PathVariable String key) {
    return xmlDownload(service.decisionXml(Entity.DECISION_DEFINITIONS, key), key, ".dmn");
  }

  /** The DMN of a DRD, as the BPMN above. */
  @GetMapping(path = "/decision-requirements/{key}/xml")
  public ResponseEntity<String> decisionRequirementsXml(@PathVariable String key) {
    return xmlDownload(service.decisionXml(Entity.DECISION_REQUIREMENTS, key), key, ".dmn");
  }

  private static ResponseEntity<String> xmlDownload(String xml, String key, String extension) {
    return ResponseEntity.ok()
        .contentType(new MediaType(MediaType.TEXT_XML, java.nio.charset.StandardCharsets.UTF_8))
        .header("Content-Security-Policy", SecurityConfiguration.DOCUMENT_POLICY)
        .header("X-Content-Type-Options", "nosniff")
        .header(HttpHeaders.CONTENT_DISPOSITION, ContentDisposition.attachment()
            .filename(key.replaceAll("[^0-9A-Za-z_-]", "_") + extension).build().toString())
        .body(xml);
  }

  private static Entity entity(String path) {
    return Entity.byPath(path).orElseThrow(() -> new NotFoundException("no entity " + path));
  }
}
