package dev.flowpipe.webapp.query;

import static dev.flowpipe.webapp.query.ApiField.of;
import static dev.flowpipe.webapp.query.ApiField.oneOf;
import static dev.flowpipe.webapp.query.FieldType.BOOLEAN;
import static dev.flowpipe.webapp.query.FieldType.DATE;
import static dev.flowpipe.webapp.query.FieldType.INTEGER;
import static dev.flowpipe.webapp.query.FieldType.KEY;
import static dev.flowpipe.webapp.query.FieldType.PRESENCE;
import static dev.flowpipe.webapp.query.FieldType.STRING;
import static dev.flowpipe.webapp.query.FieldType.TEXT;

import dev.flowpipe.schema.index.ElementEntries;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.VariableEntries;
import dev.flowpipe.schema.query.Criterion;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The entities of the search API: their path, their read-model index and the mapping of their fields, and of the
 * values of their states and types ({@link V2Values}), from Camunda's REST API v2 names to the read model's. The first
 * field is the entity's key. The reference is the 8.8 specification (camunda/camunda-docs,
 * api/camunda/version-8.8/camunda-openapi.yaml); the fields it defines that the read model does not hold are listed
 * per entity, so that a request naming one is told so.
 */
public enum Entity {
  PROCESS_DEFINITIONS(
      "process-definitions",
      ReadModelIndex.PROCESS_DEFINITION,
      List.of("bpmnXml"),
      // isLatestVersion is read apart (SearchRequestParser) and resolved by the searcher
      List.of(),
      of("processDefinitionKey", "key", KEY),
      of("processDefinitionId", "bpmnProcessId", STRING),
      of("version", "version", INTEGER),
      of("name", "name", STRING),
      of("resourceName", "resourceName", STRING),
      of("versionTag", "versionTag", STRING),
      // a start event of the process with a Zeebe form (from the BPMN at deployment; absent on older documents)
      of("hasStartForm", "hasStartForm", BOOLEAN),
      of("tenantId", "tenantId", STRING)),
  PROCESS_INSTANCES(
      "process-instances",
      ReadModelIndex.PROCESS_INSTANCE,
      // the terms of the filters on other entities (ADR 15): for searches, not for answers
      List.of(VariableEntries.FIELD, VariableEntries.SCOPED_FIELD, ElementEntries.FIELD, ElementEntries.STORED_FIELD,
          ElementEntries.INCIDENT_ERROR_MESSAGE_ITEMS, ElementEntries.INCIDENT_ERROR_HASH_CODE_ITEMS),
      // batchOperationId is read apart (SearchRequestParser) and resolved from the batches' items by the searcher
      List.of(),
      of("processInstanceKey", "key", KEY),
      of("processDefinitionKey", "processDefinitionKey", KEY),
      of("processDefinitionId", "bpmnProcessId", STRING),
      of("processDefinitionName", "processDefinitionName", STRING),
      of("processDefinitionVersion", "version", INTEGER),
      of("processDefinitionVersionTag", "processDefinitionVersionTag", STRING),
      // sorted in the v2 enum's order (ACTIVE, COMPLETED, TERMINATED), which the stored names do not sort in
      oneOf("state", "state", V2Values.PROCESS_INSTANCE_STATE).sortedBy("stateOrder", INTEGER),
      of("hasIncident", "incident", BOOLEAN),
      of("startDate", "startDate", DATE),
      of("endDate", "endDate", DATE),
      // ours, not Camunda's: when a record of the instance was last written (the stuck list's "last updated")
      of("lastUpdateDate", "lastUpdateDate", DATE),
      of("parentProcessInstanceKey", "parentProcessInstanceKey", KEY),
      of("parentElementInstanceKey", "parentElementInstanceKey", KEY),
      of("rootProcessInstanceKey", "rootProcessInstanceKey", KEY),
      of("tenantId", "tenantId", STRING)) {
    /**
     * Filters on what the instance's incidents and jobs hold, kept on the instance by the writer (ADR 15); and, read
     * apart, {@code variables} ({@link VariableFilter}), {@code elementId}, {@code elementInstanceState} and
     * {@code hasElementInstanceIncident} ({@link ElementInstanceFilter}) and {@code tags}.
     */
    @Override
    public List<ApiField> filterOnly() {
      return List.of(
          // the message of one of its open incidents
          of("errorMessage", ElementEntries.INCIDENT_ERROR_MESSAGES, STRING),
          of("incidentErrorHashCode", ElementEntries.INCIDENT_ERROR_HASH_CODES, INTEGER),
          // one of its jobs failed and has retries left
          of("hasRetriesLeft", ElementEntries.RETRIES_LEFT_JOB_KEYS, PRESENCE));
    }

    /**
     * Zeebe 8.6 has no instance tags nor business ids: every instance answers the spec's required {@code tags} as an
     * empty set and its required, nullable {@code businessId} (8.9) as null.
     */
    @Override
    public Map<String, Object> constantAnswers() {
      Map<String, Object> answers = new HashMap<>();
      answers.put("tags", List.of());
      answers.put("businessId", null);
      return Collections.unmodifiableMap(answers);
    }
  },
  ELEMENT_INSTANCES(
      "element-instances",
      ReadModelIndex.FLOW_NODE_INSTANCE,
      List.of(),
      List.of(),
      of("elementInstanceKey", "key", KEY),
      of("processInstanceKey", "processInstanceKey", KEY),
      of("processDefinitionKey", "processDefinitionKey", KEY),
      of("processDefinitionId", "bpmnProcessId", STRING),
      of("elementId", "elementId", STRING),
      of("elementName", "elementName", STRING),
      oneOf("type", "type", V2Values.ELEMENT_TYPE),
      oneOf("state", "state", V2Values.ELEMENT_INSTANCE_STATE),
      of("startDate", "startDate", DATE),
      of("endDate", "endDate", DATE),
      of("incidentKey", "incidentKey", KEY),
      of("hasIncident", "incidentKey", PRESENCE),
      of("rootProcessInstanceKey", "rootProcessInstanceKey", KEY),
      of("tenantId", "tenantId", STRING)) {
    /**
     * The element instance it runs in (its flow scope: the process instance for a top-level element, else a
     * sub-process's or a multi-instance body's instance); written by the writer from this build on.
     */
    @Override
    public List<ApiField> filterOnly() {
      return List.of(of("elementInstanceScopeKey", "flowScopeKey", KEY));
    }
  },
  VARIABLES(
      "variables",
      ReadModelIndex.VARIABLE,
      List.of("fullValue"),
      List.of(),
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
      List.of(),
      of("incidentKey", "key", KEY),
      of("processInstanceKey", "processInstanceKey", KEY),
      of("processDefinitionKey", "processDefinitionKey", KEY),
      of("processDefinitionId", "bpmnProcessId", STRING),
      of("elementInstanceKey", "elementInstanceKey", KEY),
      of("elementId", "elementId", STRING),
      oneOf("errorType", "errorType", V2Values.INCIDENT_ERROR_TYPE),
      of("errorMessage", "errorMessage", STRING).searchedAs(V2Values.EXACT_ERROR_MESSAGE),
      of("jobKey", "jobKey", KEY),
      oneOf("state", "state", V2Values.INCIDENT_STATE),
      of("creationTime", "creationTime", DATE),
      of("rootProcessInstanceKey", "rootProcessInstanceKey", KEY),
      of("tenantId", "tenantId", STRING)),
  JOBS(
      "jobs",
      ReadModelIndex.JOB,
      List.of(),
      List.of("isDenied", "deniedReason"),
      of("jobKey", "key", KEY),
      of("processInstanceKey", "processInstanceKey", KEY),
      of("processDefinitionKey", "processDefinitionKey", KEY),
      of("processDefinitionId", "bpmnProcessId", STRING),
      of("elementInstanceKey", "elementInstanceKey", KEY),
      of("elementId", "elementId", STRING),
      of("type", "type", STRING),
      of("worker", "worker", STRING),
      of("retries", "retries", INTEGER),
      // sorted in the v2 enum's order, with ACTIVATED among CREATED (as answered); jobs written before lack it
      oneOf("state", "state", V2Values.JOB_STATE).sortedBy("stateOrder", INTEGER),
      oneOf("kind", "jobKind", V2Values.JOB_KIND),
      oneOf("listenerEventType", "listenerEventType", V2Values.JOB_LISTENER_EVENT_TYPE),
      of("customHeaders", "customHeaders", TEXT),
      of("hasFailedWithRetriesLeft", "hasFailedWithRetriesLeft", BOOLEAN),
      of("errorMessage", "errorMessage", STRING).searchedAs(V2Values.EXACT_ERROR_MESSAGE),
      of("errorCode", "errorCode", STRING),
      of("deadline", "deadline", DATE),
      of("creationTime", "creationTime", DATE),
      of("lastUpdateTime", "lastUpdateTime", DATE),
      of("endTime", "endTime", DATE),
      of("rootProcessInstanceKey", "rootProcessInstanceKey", KEY),
      of("tenantId", "tenantId", STRING)),
  /** Searched only (the v2 API has no get by key); Zeebe 8.6's records carry no process definition key. */
  MESSAGE_SUBSCRIPTIONS(
      "message-subscriptions",
      ReadModelIndex.MESSAGE_SUBSCRIPTION,
      List.of(),
      List.of(),
      of("messageSubscriptionKey", "key", KEY),
      of("processDefinitionId", "bpmnProcessId", STRING),
      of("processInstanceKey", "processInstanceKey", KEY),
      of("elementId", "elementId", STRING),
      of("elementInstanceKey", "elementInstanceKey", KEY),
      oneOf("messageSubscriptionState", "state", V2Values.MESSAGE_SUBSCRIPTION_STATE),
      of("lastUpdatedDate", "lastUpdatedDate", DATE),
      of("messageName", "messageName", STRING),
      of("correlationKey", "correlationKey", STRING),
      of("tenantId", "tenantId", STRING)),
  /**
   * Searched only. One item per subscription and message: the subscription key alone is not unique (a
   * non-interrupting subscription correlates again), so the order ends with both keys. Zeebe 8.6's subscription records
   * carry no process definition key: {@code processDefinitionKey} is absent (and a filter on it finds nothing).
   */
  CORRELATED_MESSAGE_SUBSCRIPTIONS(
      "correlated-message-subscriptions",
      ReadModelIndex.MESSAGE_CORRELATION,
      List.of(),
      List.of(),
      of("subscriptionKey", "subscriptionKey", KEY),
      of("messageKey", "messageKey", KEY),
      of("correlationKey", "correlationKey", STRING),
      of("correlationTime", "correlationTime", DATE),
      of("elementId", "elementId", STRING),
      of("elementInstanceKey", "elementInstanceKey", KEY),
      of("messageName", "messageName", STRING),
      of("partitionId", "partitionId", INTEGER),
      of("processDefinitionId", "bpmnProcessId", STRING),
      of("processDefinitionKey", "processDefinitionKey", KEY),
      of("processInstanceKey", "processInstanceKey", KEY),
      of("tenantId", "tenantId", STRING)) {
    @Override
    public List<ApiField> uniqueOrder() {
      return List.of(key(), field("messageKey").orElseThrow());
    }
  },
  /** Deployed DMN decisions; a deleted one is hidden (see {@link #hidesDeleted()}). */
  DECISION_DEFINITIONS(
      "decision-definitions",
      ReadModelIndex.DECISION_DEFINITION,
      List.of(),
      List.of(),
      of("decisionDefinitionKey", "key", KEY),
      of("decisionDefinitionId", "decisionId", STRING),
      of("name", "name", STRING),
      of("version", "version", INTEGER),
      of("decisionRequirementsId", "decisionRequirementsId", STRING),
      of("decisionRequirementsKey", "decisionRequirementsKey", KEY),
      of("tenantId", "tenantId", STRING)),
  /** Deployed DRDs (the DMN XML only through {@code /xml}); a deleted one is hidden. */
  DECISION_REQUIREMENTS(
      "decision-requirements",
      ReadModelIndex.DECISION_REQUIREMENTS,
      List.of("dmnXml"),
      List.of(),
      of("decisionRequirementsKey", "key", KEY),
      of("decisionRequirementsId", "decisionRequirementsId", STRING),
      of("decisionRequirementsName", "name", STRING),
      of("version", "version", INTEGER),
      of("resourceName", "resourceName", STRING),
      of("tenantId", "tenantId", STRING)),
  /**
   * One decision of one evaluation. Its key is a string, {@code <decisionEvaluationKey>-<n>}, as Camunda's; the
   * inputs and matched rules are answered by the get only (the v2 search result has no such fields).
   */
  DECISION_INSTANCES(
      "decision-instances",
      ReadModelIndex.DECISION_INSTANCE,
      List.of("evaluatedInputs", "matchedRules"),
      List.of(),
      of("decisionEvaluationInstanceKey", "decisionInstanceId", STRING),
      oneOf("state", "state", V2Values.DECISION_INSTANCE_STATE),
      of("evaluationDate", "evaluationDate", DATE),
      of("evaluationFailure", "evaluationFailure", STRING).searchedAs("evaluationFailure.keyword"),
      of("decisionDefinitionId", "decisionId", STRING),
      of("decisionDefinitionName", "decisionName", STRING),
      of("decisionDefinitionVersion", "decisionVersion", INTEGER),
      oneOf("decisionDefinitionType", "decisionType", V2Values.DECISION_DEFINITION_TYPE),
      of("result", "result", TEXT),
      of("tenantId", "tenantId", STRING),
      of("decisionEvaluationKey", "evaluationKey", KEY),
      of("processDefinitionKey", "processDefinitionKey", KEY),
      of("processInstanceKey", "processInstanceKey", KEY),
      of("decisionDefinitionKey", "decisionKey", KEY),
      of("elementInstanceKey", "elementInstanceKey", KEY),
      of("rootProcessInstanceKey", "rootProcessInstanceKey", KEY),
      // the decision the evaluation was asked for (8.9); evaluations written before this build lack it
      of("rootDecisionDefinitionKey", "rootDecisionKey", KEY),
      of("evaluatedInputs", "evaluatedInputs", TEXT),
      of("matchedRules", "matchedRules", TEXT)) {
    /** The DRD of the evaluated decision (an 8.9 filter the result does not answer). */
    @Override
    public List<ApiField> filterOnly() {
      return List.of(of("decisionRequirementsKey", "decisionRequirementsKey", KEY));
    }
  };


  private final String path;
  private final ReadModelIndex index;
  private final List<String> leftOutOfLists;
  private final List<String> notHeld;
  private final Map<String, ApiField> fields = new LinkedHashMap<>();
  private final ApiField key;

  Entity(String path, ReadModelIndex index, List<String> leftOutOfLists, List<String> notHeld, ApiField... fields) {
    this.path = path;
    this.index = index;
    this.leftOutOfLists = leftOutOfLists;
    this.notHeld = notHeld;
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

  /** The fields that end every order, making each position in it unique (cursors never skip or repeat): the key. */
  public List<ApiField> uniqueOrder() {
    return List.of(key);
  }

  /** The read model's mark of a resource deleted in the engine (the writer's definition and decision handlers). */
  static final String DELETED = "deleted";

  /**
   * Whether the read model keeps documents of this entity marked {@code deleted} (a deleted process or DMN resource's
   * definitions and DRD: a process definition's finished instances keep naming it), which searches and gets do not show.
   */
  public boolean hidesDeleted() {
    return this == PROCESS_DEFINITIONS || this == DECISION_DEFINITIONS || this == DECISION_REQUIREMENTS;
  }

  /** Conditions every search of this entity adds to the request's: documents the API does not show. */
  public List<Criterion> alwaysApplied() {
    return hidesDeleted() ? List.of(new Criterion.Not(new Criterion.Equals(DELETED, true))) : List.of();
  }

  /** Whether the API shows no such document (what {@link #alwaysApplied()} leaves out of searches). */
  public boolean hides(Map<String, Object> document) {
    return hidesDeleted() && Boolean.TRUE.equals(document.get(DELETED));
  }

  /** Fields Camunda's REST API v2 defines for this entity that the read model does not hold. */
  public List<String> notHeld() {
    return notHeld;
  }

  /** A field the API answers, or else one it only filters on ({@link #filterOnly}). */
  public Optional<ApiField> field(String name) {
    ApiField field = fields.get(name);
    if (field == null) {
      return filterOnly().stream().filter(only -> only.name().equals(name)).findFirst();
    }
    return Optional.of(field);
  }

  /** Fields every item answers with the same value, which the read model need not hold (process-instance tags). */
  public Map<String, Object> constantAnswers() {
    return Map.of();
  }

  /** Fields Camunda's v2 API filters on but does not answer, nor sort on (an instance's incidents' messages). */
  public List<ApiField> filterOnly() {
    return List.of();
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

  /**
   * The values of the states and types as Camunda's REST API v2 (8.8) names them, and what the read model stores for
   * each (the exporter writes Zeebe's intent and enum names).
   */
  static final class V2Values {

    /** A cancelled instance is TERMINATED in the API; CANCELED, this API's earlier name, stays accepted in filters. */
    static final Vocabulary PROCESS_INSTANCE_STATE =
        Vocabulary.of("ACTIVE", "COMPLETED", "TERMINATED").storing("TERMINATED", "CANCELED").alias("CANCELED", "CANCELED");

    static final Vocabulary ELEMENT_INSTANCE_STATE = Vocabulary.of("ACTIVE", "COMPLETED", "TERMINATED");

    /** Zeebe's BPMN element types by the same names (the ad-hoc ones came after the engine this node runs). */
    static final Vocabulary ELEMENT_TYPE = Vocabulary.of(
        "UNSPECIFIED", "PROCESS", "SUB_PROCESS", "EVENT_SUB_PROCESS", "AD_HOC_SUB_PROCESS",
        "AD_HOC_SUB_PROCESS_INNER_INSTANCE", "START_EVENT", "INTERMEDIATE_CATCH_EVENT", "INTERMEDIATE_THROW_EVENT",
        "BOUNDARY_EVENT", "END_EVENT", "SERVICE_TASK", "RECEIVE_TASK", "USER_TASK", "MANUAL_TASK", "TASK",
        "EXCLUSIVE_GATEWAY", "INCLUSIVE_GATEWAY", "PARALLEL_GATEWAY", "EVENT_BASED_GATEWAY", "SEQUENCE_FLOW",
        "MULTI_INSTANCE_BODY", "CALL_ACTIVITY", "BUSINESS_RULE_TASK", "SCRIPT_TASK", "SEND_TASK", "UNKNOWN");

    /** Incidents are ACTIVE, then RESOLVED here; the read model records no migration and no pending state. */
    static final Vocabulary INCIDENT_STATE =
        Vocabulary.of("ACTIVE", "MIGRATED", "RESOLVED", "PENDING").storing("MIGRATED").storing("PENDING");

    /** Zeebe's error types by the same names. */
    static final Vocabulary INCIDENT_ERROR_TYPE = Vocabulary.of(
        "UNSPECIFIED", "UNKNOWN", "IO_MAPPING_ERROR", "JOB_NO_RETRIES", "EXECUTION_LISTENER_NO_RETRIES",
        "TASK_LISTENER_NO_RETRIES", "AD_HOC_SUB_PROCESS_NO_RETRIES", "CONDITION_ERROR", "EXTRACT_VALUE_ERROR",
        "CALLED_ELEMENT_ERROR", "UNHANDLED_ERROR_EVENT", "MESSAGE_SIZE_EXCEEDED", "CALLED_DECISION_ERROR",
        "DECISION_EVALUATION_ERROR", "FORM_NOT_FOUND", "RESOURCE_NOT_FOUND");

    /**
     * The API has no state for a job a worker holds: as in Camunda's own read model, it stays CREATED (its worker and
     * deadline say it is held). The read model keeps a job's last state when its retries change, and records no
     * migration: RETRIES_UPDATED and MIGRATED find nothing.
     */
    static final Vocabulary JOB_STATE = Vocabulary.of(
            "CANCELED", "COMPLETED", "CREATED", "ERROR_THROWN", "FAILED", "MIGRATED", "RETRIES_UPDATED", "TIMED_OUT")
        .storing("CREATED", "CREATED", "ACTIVATED").storing("MIGRATED").storing("RETRIES_UPDATED");

    /**
     * An error message is free text in the read model, with its first 8,191 characters indexed as an exact keyword:
     * filters match the whole message ($eq, $in, $like) and sorts order by it. Documents written before that sub-field
     * existed are not in it (a filter does not find them).
     */
    static final String EXACT_ERROR_MESSAGE = "errorMessage.keyword";

    /** Zeebe 8.6 writes BPMN_ELEMENT and EXECUTION_LISTENER (task listeners came with 8.7). */
    static final Vocabulary JOB_KIND = Vocabulary.of("BPMN_ELEMENT", "EXECUTION_LISTENER", "TASK_LISTENER");

    /** Zeebe 8.6 writes UNSPECIFIED, START and END; the user-task events belong to the task listeners of 8.7 on. */
    static final Vocabulary JOB_LISTENER_EVENT_TYPE = Vocabulary.of(
        "UNSPECIFIED", "START", "END", "CREATING", "ASSIGNING", "UPDATING", "COMPLETING", "CANCELING");

    /** The engine's intents by the same names; CREATING and DELETING are steps the API does not show. */
    static final Vocabulary MESSAGE_SUBSCRIPTION_STATE = Vocabulary.of("CORRELATED", "CREATED", "DELETED", "MIGRATED");

    /** An evaluated decision or the one an evaluation failed at; the read model holds no UNSPECIFIED. */
    static final Vocabulary DECISION_INSTANCE_STATE =
        Vocabulary.of("EVALUATED", "FAILED", "UNSPECIFIED").storing("UNSPECIFIED");

    /** Zeebe's decision types by the same names. */
    static final Vocabulary DECISION_DEFINITION_TYPE =
        Vocabulary.of("DECISION_TABLE", "LITERAL_EXPRESSION", "UNSPECIFIED").storing("UNSPECIFIED");

    private V2Values() {}
  }
}
