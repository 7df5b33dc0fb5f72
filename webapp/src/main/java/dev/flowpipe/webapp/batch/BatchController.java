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
import java.util.function.Supplier;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Batch operations in the shapes of Camunda's REST API v2: start one from a process-instance filter (cancel, resolve
 * incidents, migrate, modify), search batches and their items, suspend, resume and cancel a batch.
 */
@RestController
@RequestMapping(path = "/v2", produces = MediaType.APPLICATION_JSON_VALUE)
public class BatchController {

  /** What the store keeps beside a batch's v2 fields. */
  private static final Set<String> INTERNAL = Set.of(BatchOperationStore.KIND, BatchOperationStore.REVISION, "user",
      "filter", "plan", "settled");
  /** What the store keeps beside an item's v2 fields. */
  private static final Set<String> INTERNAL_OF_ITEMS = Set.of(BatchOperationStore.KIND, BatchOperationStore.REVISION,
      "sentAt", "terminate", "activate");

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

  @PostMapping("/process-instances/migration")
  public ResponseEntity<Map<String, Object>> migrate(@RequestBody(required = false) JsonNode request) {
    return start(BatchOperations.Type.MIGRATE_PROCESS_INSTANCE, request);
  }

  @PostMapping("/process-instances/modification")
  public ResponseEntity<Map<String, Object>> modify(@RequestBody(required = false) JsonNode request) {
    return start(BatchOperations.Type.MODIFY_PROCESS_INSTANCE, request);
  }

  @GetMapping("/batch-operations/{batchOperationKey}")
  public Map<String, Object> batch(@PathVariable String batchOperationKey) {
    return answer(batches.batch(batchOperationKey)
        .orElseThrow(() -> new NotFoundException("no batch operation " + batchOperationKey)));
  }

  /** The v2 search of batches: filter on key, type and state, sort, page by from and limit. */
  @PostMapping("/batch-operations/search")
  public Map<String, Object> search(@RequestBody(required = false) JsonNode request) {
    SearchHits hits = batches.searchBatches(BatchSearchRequest.ofBatches(request));
    return page(hits.hits().stream().map(hit -> answer(hit.source())).toList(), hits.total());
  }

  /** The v2 search of batch items: filter on batch, item and instance key, state and type, sort, page. */
  @PostMapping("/batch-operation-items/search")
  public Map<String, Object> items(@RequestBody(required = false) JsonNode request) {
    SearchHits hits = batches.searchItems(BatchSearchRequest.ofItems(request));
    return page(hits.hits().stream().map(hit -> {
      Map<String, Object> item = new LinkedHashMap<>(hit.source());
      item.keySet().removeAll(INTERNAL_OF_ITEMS);
      return item;
    }).toList(), hits.total());
  }

  @PostMapping("/batch-operations/{batchOperationKey}/suspension")
  public ResponseEntity<Void> suspend(@PathVariable String batchOperationKey,
      @RequestBody(required = false) JsonNode ignoredBody) {
    return changed("suspend", batchOperationKey, () -> batches.suspend(batchOperationKey));
  }

  @PostMapping("/batch-operations/{batchOperationKey}/resumption")
  public ResponseEntity<Void> resume(@PathVariable String batchOperationKey,
      @RequestBody(required = false) JsonNode ignoredBody) {
    return changed("resume", batchOperationKey, () -> batches.resumeBatch(batchOperationKey));
  }

  @PostMapping("/batch-operations/{batchOperationKey}/cancellation")
  public ResponseEntity<Void> cancelBatch(@PathVariable String batchOperationKey,
      @RequestBody(required = false) JsonNode ignoredBody) {
    return changed("cancel", batchOperationKey, () -> batches.cancel(batchOperationKey));
  }

  /** 204 as in Camunda's v2 API; 404 an unknown batch, 409 one whose state does not allow the change. */
  private ResponseEntity<Void> changed(String verb, String key, Supplier<Map<String, Object>> change) {
    return OperationAudit.audited(verb + " batch operation " + key, null, () -> {
      change.get();
      return ResponseEntity.noContent().build();
    });
  }

  @ExceptionHandler(BatchOperations.StateConflict.class)
  ResponseEntity<ProblemDetail> conflict(BatchOperations.StateConflict e) {
    return ResponseEntity.status(HttpStatus.CONFLICT)
        .body(ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, e.getMessage()));
  }

  private static Map<String, Object> answer(Map<String, Object> batch) {
    Map<String, Object> answer = new LinkedHashMap<>(batch);
    answer.keySet().removeAll(INTERNAL);
    answer.putIfAbsent("errors", List.of()); // the engine's partition errors in 8.8: none here (no engine batches)
    return answer;
  }

  private static Map<String, Object> page(List<Map<String, Object>> items, long total) {
    Map<String, Object> page = new LinkedHashMap<>();
    page.put("totalItems", total);
    page.put("hasMoreTotalItems", false);
    return Map.of("items", items, "page", page);
  }
}
