package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.VariableEntries;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.IncidentIntent;
import io.camunda.zeebe.protocol.record.value.IncidentRecordValue;
import java.util.List;

/**
 * A new incident arms an alert (issue 36, ADR 0021): an alert document with the incident's key as its id, in state
 * {@code NEW}, written in the same bulk as the incident. The alert dispatcher of the web app turns it into deliveries.
 *
 * <p>Replay-safe without a read: the document is versioned by the incident's position, and the dispatcher writes only
 * later versions (its claims and marks), so the store answers a replayed creation from any earlier position with a
 * 409 ("already applied") and never re-arms an alert that was armed or delivered. Only the incident's creation arms
 * one: a resolved incident that appears again is a new incident, with a new key.
 */
public final class IncidentAlertHandler implements ExportHandler {

  /** The state of an alert the writer armed and no dispatcher has looked at yet. */
  public static final String NEW = "NEW";

  private final String alerts;

  public IncidentAlertHandler(String indexPrefix) {
    this.alerts = ReadModelIndex.ALERT.indexName(indexPrefix);
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && record.getValueType() == ValueType.INCIDENT
        && record.getIntent() == IncidentIntent.CREATED;
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var value = (IncidentRecordValue) record.getValue();
    String message = value.getErrorMessage();
    return List.of(DocumentChange.create(alerts, record.getKey(), record.getPosition())
        .put("key", record.getKey())
        .put("processInstanceKey", value.getProcessInstanceKey())
        .put("processDefinitionKey", value.getProcessDefinitionKey())
        .put("bpmnProcessId", value.getBpmnProcessId())
        .put("elementInstanceKey", value.getElementInstanceKey())
        .put("elementId", value.getElementId())
        .put("errorType", value.getErrorType().name())
        .put("errorMessage", message == null ? null : VariableEntries.cut(message))
        .put("state", NEW)
        .put("creationTime", Dates.of(record.getTimestamp()))
        .put("tenantId", value.getTenantId())
        .put("partitionId", record.getPartitionId())
        .build());
  }
}
