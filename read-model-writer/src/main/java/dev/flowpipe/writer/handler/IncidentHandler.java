package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ElementEntries;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.VariableEntries;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.IncidentIntent;
import io.camunda.zeebe.protocol.record.value.IncidentRecordValue;
import java.util.ArrayList;
import java.util.List;

/**
 * An incident becomes an incident document (ACTIVE, then RESOLVED) and is reflected on its process instance (the
 * keys of its open incidents and an {@code incident} flag) and on its element instance ({@code incidentKey}). A
 * migration moves an open incident with its element ({@code MIGRATED}: the target definition's key and process id, the
 * target element's id); it stays ACTIVE, on the same instance and element instance (whose keys a migration keeps).
 */
public final class IncidentHandler implements ExportHandler {

  private final String incidents;
  private final String instances;
  private final String elements;

  public IncidentHandler(String indexPrefix) {
    this.incidents = ReadModelIndex.INCIDENT.indexName(indexPrefix);
    this.instances = ReadModelIndex.PROCESS_INSTANCE.indexName(indexPrefix);
    this.elements = ReadModelIndex.FLOW_NODE_INSTANCE.indexName(indexPrefix);
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && record.getValueType() == ValueType.INCIDENT
        && (record.getIntent() == IncidentIntent.CREATED || record.getIntent() == IncidentIntent.RESOLVED
            || record.getIntent() == IncidentIntent.MIGRATED);
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var value = (IncidentRecordValue) record.getValue();
    long key = record.getKey();
    long position = record.getPosition();
    long instanceKey = value.getProcessInstanceKey();
    long elementInstanceKey = value.getElementInstanceKey();
    if (record.getIntent() == IncidentIntent.MIGRATED) {
      return List.of(DocumentChange.update(incidents, key, position)
          .put("processDefinitionKey", value.getProcessDefinitionKey())
          .put("bpmnProcessId", value.getBpmnProcessId())
          .put("elementId", value.getElementId())
          .build());
    }
    boolean created = record.getIntent() == IncidentIntent.CREATED;
    List<DocumentChange> changes = new ArrayList<>(3);
    if (created) {
      changes.add(DocumentChange.create(incidents, key, position)
          .put("key", key)
          .put("processInstanceKey", instanceKey)
          .put("processDefinitionKey", value.getProcessDefinitionKey())
          .put("bpmnProcessId", value.getBpmnProcessId())
          .put("elementInstanceKey", elementInstanceKey)
          .put("elementId", value.getElementId())
          .put("errorType", value.getErrorType().name())
          .put("errorMessage", value.getErrorMessage())
          // what incident statistics group by, as Camunda's v2 API names an error (errorHashCode): the message's hash
          .put("errorMessageHash", java.util.Objects.hashCode(value.getErrorMessage()))
          .put("jobKey", Dates.key(value.getJobKey()))
          .put("state", "ACTIVE")
          .put("creationTime", Dates.of(record.getTimestamp()))
          .put("tenantId", value.getTenantId())
          .put("partitionId", record.getPartitionId())
          .build());
    } else {
      changes.add(DocumentChange.update(incidents, key, position).put("state", "RESOLVED").build());
    }
    // the instance keeps the keys of its open incidents, and a flag for whether there are any; and, for the filters
    // errorMessage and incidentErrorHashCode, their messages and hash codes (ADR 15)
    String message = value.getErrorMessage();
    // one change of the instance per record: a second one at the same position would be taken as already applied
    var instance = DocumentChange.update(instances, instanceKey, position)
        .edit(new FieldEdit.KeyInList("incidentKeys", key, created))
        .edit(new FieldEdit.FlagNotEmpty("incident", "incidentKeys"))
        .edit(new FieldEdit.KeyedEntries(ElementEntries.INCIDENT_ERROR_MESSAGE_ITEMS,
            ElementEntries.INCIDENT_ERROR_MESSAGES, String.valueOf(key),
            created && message != null ? List.of(VariableEntries.cut(message)) : List.of()))
        .edit(new FieldEdit.KeyedEntries(ElementEntries.INCIDENT_ERROR_HASH_CODE_ITEMS,
            ElementEntries.INCIDENT_ERROR_HASH_CODES, String.valueOf(key),
            created ? List.of(String.valueOf(java.util.Objects.hashCode(message))) : List.of()))
        .put(ProcessInstanceHandler.LAST_UPDATE, Dates.of(record.getTimestamp()));
    // an incident on the process element itself has no flow-node document
    boolean onAnElement = elementInstanceKey != instanceKey;
    if (onAnElement) {
      // the element filter's incident flag of that element instance
      instance.edit(new FieldEdit.ElementCount(value.getElementId(), "ACTIVE", !created, "ACTIVE", created));
    }
    changes.add(instance.build());
    if (onAnElement) {
      changes.add(DocumentChange.update(elements, elementInstanceKey, position)
          .edit(created ? new FieldEdit.Put("incidentKey", key) : new FieldEdit.ClearKeyIfEquals("incidentKey", key))
          .build());
    }
    return changes;
  }
}
