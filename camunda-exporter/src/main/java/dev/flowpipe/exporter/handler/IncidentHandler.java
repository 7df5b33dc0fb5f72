package dev.flowpipe.exporter.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.IncidentIntent;
import io.camunda.zeebe.protocol.record.value.IncidentRecordValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An incident becomes an incident document (ACTIVE, then RESOLVED) and is reflected on its process instance (the
 * keys of its open incidents and an {@code incident} flag) and on its element instance ({@code incidentKey}).
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
        && (record.getIntent() == IncidentIntent.CREATED || record.getIntent() == IncidentIntent.RESOLVED);
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var value = (IncidentRecordValue) record.getValue();
    long key = record.getKey();
    long position = record.getPosition();
    boolean created = record.getIntent() == IncidentIntent.CREATED;
    List<DocumentChange> changes = new ArrayList<>(3);
    if (created) {
      changes.add(DocumentChange.create(incidents, key, position, doc -> {
        doc.put("key", key);
        doc.put("processInstanceKey", value.getProcessInstanceKey());
        doc.put("processDefinitionKey", value.getProcessDefinitionKey());
        doc.put("bpmnProcessId", value.getBpmnProcessId());
        doc.put("elementInstanceKey", value.getElementInstanceKey());
        doc.put("elementId", value.getElementId());
        doc.put("errorType", value.getErrorType().name());
        doc.put("errorMessage", value.getErrorMessage());
        doc.put("jobKey", Dates.key(value.getJobKey()));
        doc.put("state", "ACTIVE");
        doc.put("creationTime", Dates.of(record.getTimestamp()));
        doc.put("tenantId", value.getTenantId());
        doc.put("partitionId", record.getPartitionId());
      }));
    } else {
      changes.add(DocumentChange.update(incidents, key, position, doc -> doc.put("state", "RESOLVED")));
    }
    changes.add(
        DocumentChange.update(instances, value.getProcessInstanceKey(), position, doc -> openIncidents(doc, key, created)));
    // an incident on the process element itself has no flow-node document
    if (value.getElementInstanceKey() != value.getProcessInstanceKey()) {
      changes.add(DocumentChange.update(elements, value.getElementInstanceKey(), position, doc -> {
        if (created) {
          doc.put("incidentKey", key);
        } else if (Objects.equals(toLong(doc.get("incidentKey")), key)) {
          doc.put("incidentKey", null);
        }
      }));
    }
    return changes;
  }

  private static void openIncidents(Map<String, Object> instance, long incidentKey, boolean created) {
    List<Long> open = new ArrayList<>();
    if (instance.get("incidentKeys") instanceof List<?> stored) {
      stored.forEach(k -> open.add(toLong(k)));
    }
    open.remove(Long.valueOf(incidentKey));
    if (created) {
      open.add(incidentKey);
    }
    instance.put("incidentKeys", open);
    instance.put("incident", !open.isEmpty());
  }

  /** Stored numbers come back as Integer or Long. */
  private static Long toLong(Object number) {
    return number instanceof Number n ? n.longValue() : null;
  }
}
