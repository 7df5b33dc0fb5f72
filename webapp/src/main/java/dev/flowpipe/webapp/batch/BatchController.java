package dev.flowpipe.webapp.batch;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.webapp.api.NotFoundException;
import dev.flowpipe.webapp.audit.AuditLog;
import dev.flowpipe.webapp.audit.AuditedOperation;
import dev.flowpipe.webapp.operations.OperationAudit;
import dev.flowpipe.webapp.query.BadRequestException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Batch operations in the shapes of Camunda's REST API v2: start one from a process-instance filter (cancel, or
 * resolve incidents), follow its progress, list its items with their outcomes.
 */
@RestController
@RequestMapping(path = "/v2", produces = MediaType.APPLICATION_JSON_VALUE)
public class BatchController {

  private static final Set<String> ITEM_STATES = Set.of("ACTIVE", "COMPLETED", "SKIPPED", "FAILED");
  private static final Set<String> INTERNAL = Set.of(BatchOperationStore.KIND, "user", "filter");

  private final BatchOperations batches;
  private final AuditLog audit;

  public BatchController(BatchOperations batches, AuditLog audit) {
    this.batches = batches;
    this.audit = audit;
  }

  @PostMapping("/process-instances/cancellation")
  public ResponseEntity<Map<String, Object>> cancel(@RequestBody(required = false) JsonNode request) {
    return start(BatchOperations.Type.CANCEL_PROCESS_INSTANCE, request);
  }

  @PostMapping("/process-instances/incident-resolution")
  public ResponseEntity<Map<String, Object>> resolveIncidents(@RequestBody(required = false) JsonNode request) {
    return start(BatchOperations.Type.RESOLVE_INCIDENT, request);
  }

  /**
   * Deletes the finished instances the filter finds from the read model (8.9's shape; Zeebe 8.6 keeps their history
   * in the log: see {@code InstanceDeletion}).
   */
  @PostMapping("/process-instances/deletion")
  public ResponseEntity<Map<String, Object>> delete(@RequestBody(required = false) JsonNode request) {
    return start(BatchOperations.Type.DELETE_PROCESS_INSTANCE, request);
  }

  private ResponseEntity<Map<String, Object>> start(BatchOperations.Type type, JsonNode request) {
    String user = OperationAudit.user();
    // one entry per batch, when it starts: its items are its own steps, logged line by line
    AuditedOperation what = AuditedOperation.batch(type.name(), null);
    return OperationAudit.audited(audit, what, answer -> answer.getBody() == null ? null
        : what.withBatchKey(answer.getBody().get("batchOperationKey")),
        "start batch " + type + " for " + (request == null ? null : request.get("filter")), null, () -> {
          Map<String, Object> batch = batches.create(type, request, user);
          Map<String, Object> answer = new LinkedHashMap<>();
          answer.put("batchOperationKey", batch.get("batchOperationKey"));
          answer.put("batchOperationType", batch.get("batchOperationType"));
          answer.put("operationsTotalCount", batch.get("operationsTotalCount")); // beyond the v2 answer
          return ResponseEntity.ok(answer);
        });
  }

  @GetMapping("/batch-operations/{batchOperationKey}")
  public Map<String, Object> batch(@PathVariable String batchOperationKey) {
    Map<String, Object> batch = batches.batch(batchOperationKey)
        .orElseThrow(() -> new NotFoundException("no batch operation " + batchOperationKey));
    Map<String, Object> answer = new LinkedHashMap<>(batch);
    answer.keySet().removeAll(INTERNAL);
    return answer;
  }

  /** {@code {"filter": {"batchOperationKey": k, "state": s}, "page": {"from": n, "limit": m}}}. */
  @PostMapping("/batch-operation-items/search")
  public Map<String, Object> items(@RequestBody(required = false) JsonNode request) {
    JsonNode filter = request == null ? null : request.get("filter");
    if (filter == null || !filter.path("batchOperationKey").isTextual()) {
      throw new BadRequestException("filter.batchOperationKey", "is required (a string)");
    }
    String state = filter.hasNonNull("state") ? filter.get("state").asText() : null;
    if (state != null && !ITEM_STATES.contains(state)) {
      throw new BadRequestException("filter.state", "expected one of " + ITEM_STATES + ", was '" + state + "'");
    }
    JsonNode page = request.path("page");
    long from = pageValue(page, "from", 0);
    long limit = pageValue(page, "limit", 100);
    // in long, read from the JSON number itself: asInt() would wrap a huge number to a small one
    if (limit > 1000 || from + limit > 10_000) {
      throw new BadRequestException("page", "from >= 0, limit 0 to 1000, from + limit <= 10000; were " + from
          + " and " + limit);
    }
    SearchHits hits = batches.items(filter.get("batchOperationKey").asText(), state, (int) from, (int) limit);
    List<Map<String, Object>> items = hits.hits().stream().map(hit -> {
      Map<String, Object> item = new LinkedHashMap<>(hit.source());
      item.remove(BatchOperationStore.KIND);
      return item;
    }).toList();
    return Map.of("items", items, "page", Map.of("totalItems", hits.total()));
  }

  private static long pageValue(JsonNode page, String name, long absent) {
    JsonNode value = page.path(name);
    if (value.isMissingNode() || value.isNull()) {
      return absent;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 0) {
      throw new BadRequestException("page." + name, "expected an integer >= 0, was " + value);
    }
    return value.intValue();
  }
}
