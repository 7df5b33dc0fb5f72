package dev.flowpipe.webapp.query;

import static dev.flowpipe.webapp.query.ApiField.of;
import static dev.flowpipe.webapp.query.ApiField.oneOf;
import static dev.flowpipe.webapp.query.FieldType.BOOLEAN;
import static dev.flowpipe.webapp.query.FieldType.DATE;
import static dev.flowpipe.webapp.query.FieldType.INTEGER;
import static dev.flowpipe.webapp.query.FieldType.KEY;
import static dev.flowpipe.webapp.query.FieldType.STRING;
import static dev.flowpipe.webapp.query.FieldType.TEXT;

import dev.flowpipe.schema.index.ReadModelIndex;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The entities of the search API: their path, their read-model index and the mapping of their fields from Camunda's
 * REST API v2 names to the read model's. The first field is the entity's key.
 */
public enum Entity {
  PROCESS_DEFINITIONS(
      "process-definitions",
      ReadModelIndex.PROCESS_DEFINITION,
      List.of("bpmnXml"),
      of("processDefinitionKey", "key", KEY),
      of("processDefinitionId", "bpmnProcessId", STRING),
      of("version", "version", INTEGER),
      of("name", "name", STRING),
      of("resourceName", "resourceName", STRING),
      of("tenantId", "tenantId", STRING)),
  PROCESS_INSTANCES(
      "process-instances",
      ReadModelIndex.PROCESS_INSTANCE,
      List.of(),
      of("processInstanceKey", "key", KEY),
      of("processDefinitionKey", "processDefinitionKey", KEY),
      of("processDefinitionId", "bpmnProcessId", STRING),
      of("processDefinitionVersion", "version", INTEGER),
      oneOf("state", "state", "ACTIVE", "COMPLETED", "CANCELED"),
      of("hasIncident", "incident", BOOLEAN),
      of("startDate", "startDate", DATE),
      of("endDate", "endDate", DATE),
      of("parentProcessInstanceKey", "parentProcessInstanceKey", KEY),
      of("parentElementInstanceKey", "parentElementInstanceKey", KEY),
      of("tenantId", "tenantId", STRING)),
  ELEMENT_INSTANCES(
      "element-instances",
      ReadModelIndex.FLOW_NODE_INSTANCE,
      List.of(),
      of("elementInstanceKey", "key", KEY),
      of("processInstanceKey", "processInstanceKey", KEY),
      of("processDefinitionKey", "processDefinitionKey", KEY),
      of("processDefinitionId", "bpmnProcessId", STRING),
      of("elementId", "elementId", STRING),
      of("type", "type", STRING),
      oneOf("state", "state", "ACTIVE", "COMPLETED", "TERMINATED"),
      of("startDate", "startDate", DATE),
      of("endDate", "endDate", DATE),
      of("incidentKey", "incidentKey", KEY),
      of("tenantId", "tenantId", STRING)),
  VARIABLES(
      "variables",
      ReadModelIndex.VARIABLE,
      List.of("fullValue"),
      of("variableKey", "key", KEY),
      of("name", "name", STRING),
      of("value", "value", STRING),
      of("isTruncated", "truncated", BOOLEAN),
      of("scopeKey", "scopeKey", KEY),
      of("processInstanceKey", "processInstanceKey", KEY),
      of("lastUpdate", "lastUpdate", DATE),
      of("tenantId", "tenantId", STRING)),
  INCIDENTS(
      "incidents",
      ReadModelIndex.INCIDENT,
      List.of(),
      of("incidentKey", "key", KEY),
      of("processInstanceKey", "processInstanceKey", KEY),
      of("processDefinitionKey", "processDefinitionKey", KEY),
      of("processDefinitionId", "bpmnProcessId", STRING),
      of("elementInstanceKey", "elementInstanceKey", KEY),
      of("elementId", "elementId", STRING),
      of("errorType", "errorType", STRING),
      of("errorMessage", "errorMessage", TEXT),
      of("jobKey", "jobKey", KEY),
      oneOf("state", "state", "ACTIVE", "RESOLVED"),
      of("creationTime", "creationTime", DATE),
      of("tenantId", "tenantId", STRING)),
  JOBS(
      "jobs",
      ReadModelIndex.JOB,
      List.of(),
      of("jobKey", "key", KEY),
      of("processInstanceKey", "processInstanceKey", KEY),
      of("processDefinitionKey", "processDefinitionKey", KEY),
      of("processDefinitionId", "bpmnProcessId", STRING),
      of("elementInstanceKey", "elementInstanceKey", KEY),
      of("elementId", "elementId", STRING),
      of("type", "type", STRING),
      of("worker", "worker", STRING),
      of("retries", "retries", INTEGER),
      oneOf("state", "state", "CREATED", "ACTIVATED", "COMPLETED", "FAILED", "ERROR_THROWN", "TIMED_OUT", "CANCELED"),
      of("errorMessage", "errorMessage", TEXT),
      of("errorCode", "errorCode", STRING),
      of("deadline", "deadline", DATE),
      of("tenantId", "tenantId", STRING));

  private final String path;
  private final ReadModelIndex index;
  private final List<String> leftOutOfLists;
  private final Map<String, ApiField> fields = new LinkedHashMap<>();
  private final ApiField key;

  Entity(String path, ReadModelIndex index, List<String> leftOutOfLists, ApiField... fields) {
    this.path = path;
    this.index = index;
    this.leftOutOfLists = leftOutOfLists;
    for (ApiField field : fields) {
      this.fields.put(field.name(), field);
    }
    this.key = fields[0];
  }

  /** The path segment under {@code /v2/}, e.g. {@code process-instances}. */
  public String path() {
    return path;
  }

  public ReadModelIndex index() {
    return index;
  }

  /** Large stored fields that search answers leave out (the BPMN XML, a variable's full value). */
  public List<String> leftOutOfLists() {
    return leftOutOfLists;
  }

  public ApiField key() {
    return key;
  }

  public Optional<ApiField> field(String name) {
    return Optional.ofNullable(fields.get(name));
  }

  public List<ApiField> fields() {
    return List.copyOf(fields.values());
  }

  public static Optional<Entity> byPath(String path) {
    for (Entity entity : values()) {
      if (entity.path.equals(path)) {
        return Optional.of(entity);
      }
    }
    return Optional.empty();
  }
}
