package dev.flowpipe.webapp.operations;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.webapp.api.NotFoundException;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.audit.AuditLog;
import dev.flowpipe.webapp.audit.AuditedOperation;
import dev.flowpipe.webapp.query.Entity;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The operations: engine commands in the request and answer shapes of Camunda's REST API v2 (cancel an instance,
 * resolve an incident, change a job, set variables, create an instance, publish a message, modify and migrate an
 * instance). Each answer carries, where
 * this process can tell, the log position its effect is written at or below ({@value #POSITION_HEADER}:
 * {@code <partitionId>:<position>}), which a search's {@code consistency.positions} waits for: the next read then
 * shows the effect. Every operation is logged with the user and the outcome ({@code dev.flowpipe.webapp.operations}).
 */
@RestController
@RequestMapping(path = "/v2", produces = MediaType.APPLICATION_JSON_VALUE)
public class OperationsController {

  /** The answer header naming the position a read must wait for to see the operation's effect. */
  public static final String POSITION_HEADER = "Flowpipe-Written-Position";

  private final EngineCommands engine;
  private final WrittenPositions positions;
  private final SearchService readModel;
  private final IncidentResolution incidents;
  private final InstanceDeletion deletion;
  private final AuditLog audit;

  public OperationsController(EngineCommands engine, WrittenPositions positions, SearchService readModel,
      InstanceDeletion deletion, AuditLog audit) {
    this.audit = audit;
    this.engine = engine;
    this.positions = positions;
    this.readModel = readModel;
    this.incidents = new IncidentResolution(engine, readModel);
    this.deletion = deletion;
  }

  /**
   * Deletes a finished instance from the read model (8.9's shape; Zeebe 8.6 keeps its history in the log, which a
   * tombstone keeps from coming back: {@link InstanceDeletion}); 204, 404 unknown, 409 not finished.
   */
  @PostMapping("/process-instances/{processInstanceKey}/deletion")
  public ResponseEntity<Void> delete(@PathVariable String processInstanceKey,
      @RequestBody(required = false) JsonNode ignoredBody) {
    long key = OperationRequests.key("processInstanceKey", processInstanceKey);
    String user = OperationAudit.user();
    return OperationAudit.audited(audit, AuditedOperation.onInstance("DELETE", key), "delete process instance", key,
        () -> {
      deletion.delete(key, user);
      return ResponseEntity.noContent().build();
    });
  }

  @PostMapping("/process-instances/{processInstanceKey}/cancellation")
  public ResponseEntity<Void> cancel(@PathVariable String processInstanceKey,
      @RequestBody(required = false) JsonNode ignoredBody) {
    long key = OperationRequests.key("processInstanceKey", processInstanceKey);
    return OperationAudit.audited(audit, AuditedOperation.onInstance("CANCEL", key), "cancel process instance", key,
        () -> {
      engine.cancelProcessInstance(key);
      return noContent(key);
    });
  }

  /** For an incident of a job without retries left, the job's retries are raised to 1 first, as Operate does. */
  @PostMapping("/incidents/{incidentKey}/resolution")
  public ResponseEntity<Void> resolveIncident(@PathVariable String incidentKey,
      @RequestBody(required = false) JsonNode ignoredBody) {
    long key = OperationRequests.key("incidentKey", incidentKey);
    AuditedOperation what = AuditedOperation.on("RESOLVE", "INCIDENT", key)
        .withProcessInstanceKey(instanceOf(key, Entity.INCIDENTS));
    return OperationAudit.audited(audit, what, "resolve incident", key,
        () -> {
      incidents.resolve(key);
      return noContent(key);
    });
  }

  // {key}, not the v2 spec's {jobKey}: one path template with GET /v2/jobs/{key} (the name is not on the wire)
  @PatchMapping("/jobs/{key}")
  public ResponseEntity<Void> updateJob(@PathVariable("key") String jobKey,
      @RequestBody(required = false) JsonNode body) {
    long key = OperationRequests.key("jobKey", jobKey);
    OperationRequests.JobChange change = OperationRequests.JobChange.of(body);
    AuditedOperation what = AuditedOperation.on("UPDATE", "JOB", key).withProcessInstanceKey(instanceOf(key, Entity.JOBS));
    what = change.retries() == null ? what : what.withDetail("retries", change.retries());
    what = change.timeout() == null ? what : what.withDetail("timeout", change.timeout());
    return OperationAudit.audited(audit, what, "update job " + change, key, () -> {
      engine.updateJob(key, change.retries(), change.timeout());
      return noContent(key);
    });
  }

  @PutMapping("/element-instances/{elementInstanceKey}/variables")
  public ResponseEntity<Void> setVariables(@PathVariable String elementInstanceKey,
      @RequestBody(required = false) JsonNode body) {
    long key = OperationRequests.key("elementInstanceKey", elementInstanceKey);
    OperationRequests.VariablesChange change = OperationRequests.VariablesChange.of(body);
    // the names, never the values (they may be personal data)
    // the scope is an element instance or the process instance itself
    AuditedOperation what = AuditedOperation.on("UPDATE", "VARIABLE", key)
        .withProcessInstanceKey(instanceOf(key, Entity.ELEMENT_INSTANCES, Entity.PROCESS_INSTANCES))
        .withDetail("variableNames", java.util.List.copyOf(change.variables().keySet()))
        .withDetail("local", change.local());
    return OperationAudit.audited(audit, what,
        "set variables " + change.variables().keySet() + (change.local() ? " locally" : ""), key, () -> {
      engine.setVariables(key, change.variables(), change.local());
      return noContent(key);
    });
  }

  /** Activates and terminates elements of a running instance (the v2 shape of 8.8); 204, or the engine's refusal. */
  @PostMapping("/process-instances/{processInstanceKey}/modification")
  public ResponseEntity<Void> modify(@PathVariable String processInstanceKey,
      @RequestBody(required = false) JsonNode body) {
    long key = OperationRequests.key("processInstanceKey", processInstanceKey);
    EngineCommands.Modification modification = OperationRequests.modification(body);
    List<String> activated = modification.activations().stream().map(EngineCommands.Activation::elementId).toList();
    AuditedOperation what = AuditedOperation.onInstance("MODIFY", key)
        .withDetail("activatedElementIds", activated)
        .withDetail("terminatedElementInstanceKeys",
            modification.terminations().stream().map(String::valueOf).toList());
    return OperationAudit.audited(audit, what, "modify process instance: activate " + activated + ", terminate "
        + modification.terminations(), key, () -> {
          engine.modifyProcessInstance(key, modification);
          return noContent(key);
        });
  }

  /** Migrates a running instance to another definition (the v2 shape of 8.8); 204, or the engine's refusal. */
  @PostMapping("/process-instances/{processInstanceKey}/migration")
  public ResponseEntity<Void> migrate(@PathVariable String processInstanceKey,
      @RequestBody(required = false) JsonNode body) {
    long key = OperationRequests.key("processInstanceKey", processInstanceKey);
    EngineCommands.Migration migration = OperationRequests.migration(body);
    AuditedOperation what = AuditedOperation.onInstance("MIGRATE", key)
        .withDetail("targetProcessDefinitionKey", String.valueOf(migration.targetProcessDefinitionKey()))
        .withDetail("mappingInstructions", migration.mappings().stream()
            .map(m -> Map.of("sourceElementId", m.sourceElementId(), "targetElementId", m.targetElementId())).toList());
    return OperationAudit.audited(audit, what, "migrate process instance to definition "
        + migration.targetProcessDefinitionKey()
        + " " + migration.mappings().stream().map(m -> m.sourceElementId() + "->" + m.targetElementId()).toList(),
        key, () -> {
          engine.migrateProcessInstance(key, migration);
          return noContent(key);
        });
  }

  /**
   * The process instance of an incident, a job or a variable scope, as the read model holds it (the first entity that
   * knows the key), for the audit log; null where none does yet or the store cannot say now: the engine decides on
   * the operation either way, and the entry then names no instance.
   */
  private String instanceOf(long key, Entity... entities) {
    for (Entity entity : entities) {
      try {
        Object instance = readModel.get(entity, Long.toString(key)).get("processInstanceKey");
        return instance == null ? null : instance.toString();
      } catch (NotFoundException e) {
        // not this entity's key: the next one may know it
      } catch (RuntimeException e) {
        return null; // the store unreachable for now: the operation goes on without it
      }
    }
    return null;
  }

  @PostMapping("/process-instances")
  public ResponseEntity<Map<String, Object>> createProcessInstance(@RequestBody(required = false) JsonNode body) {
    EngineCommands.InstanceToCreate instance = OperationRequests.instanceToCreate(body);
    String target = instance.processDefinitionKey() != null ? "definition " + instance.processDefinitionKey()
        : instance.processDefinitionId() + " version " + instance.processDefinitionVersion();
    AuditedOperation what = AuditedOperation.on("CREATE", "PROCESS_INSTANCE", null).withDetail("processDefinition",
        target);
    return OperationAudit.audited(audit, what, answer -> answer.getBody() == null ? null
        : what.withEntityKey(answer.getBody().get("processInstanceKey")), "create process instance of " + target,
        null, () -> {
      EngineCommands.CreatedInstance created = engine.createProcessInstance(instance);
      Map<String, Object> answer = new LinkedHashMap<>();
      answer.put("processDefinitionKey", Long.toString(created.processDefinitionKey()));
      answer.put("processDefinitionId", created.processDefinitionId());
      answer.put("processDefinitionVersion", created.processDefinitionVersion());
      answer.put("tenantId", created.tenantId());
      answer.put("variables", Map.of());
      answer.put("processInstanceKey", Long.toString(created.processInstanceKey()));
      return withPosition(ResponseEntity.ok(), created.processInstanceKey()).body(answer);
    });
  }

  @PostMapping("/messages/publication")
  public ResponseEntity<Map<String, Object>> publishMessage(@RequestBody(required = false) JsonNode body) {
    EngineCommands.MessageToPublish message = OperationRequests.messageToPublish(body);
    AuditedOperation what = AuditedOperation.on("CREATE", "MESSAGE", null).withDetail("messageName", message.name());
    return OperationAudit.audited(audit, what, answer -> answer.getBody() == null ? null
        : what.withEntityKey(answer.getBody().get("messageKey")), "publish message " + message.name(), null, () -> {
      EngineCommands.PublishedMessage published = engine.publishMessage(message);
      Map<String, Object> answer = new LinkedHashMap<>();
      answer.put("tenantId", published.tenantId());
      answer.put("messageKey", Long.toString(published.messageKey()));
      return withPosition(ResponseEntity.ok(), published.messageKey()).body(answer);
    });
  }

  private ResponseEntity<Void> noContent(long key) {
    return withPosition(ResponseEntity.status(HttpStatus.NO_CONTENT), key).build();
  }

  private ResponseEntity.BodyBuilder withPosition(ResponseEntity.BodyBuilder answer, long key) {
    int partition = WrittenPositions.partitionOf(key);
    OptionalLong position = positions.lastWritten(partition);
    if (position.isPresent()) {
      answer.header(POSITION_HEADER, partition + ":" + position.getAsLong());
    }
    return answer;
  }
}
