package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent;
import io.camunda.zeebe.protocol.record.value.BpmnElementType;
import io.camunda.zeebe.protocol.record.value.ProcessInstanceRecordValue;
import java.util.List;

/**
 * Every BPMN element the engine activates inside an instance (tasks, events, gateways, sub-processes, call
 * activities, multi-instance bodies...) becomes a flow-node-instance document: ACTIVE, then COMPLETED or TERMINATED.
 * The process element itself is the process-instance document; sequence flows are never activated. Each also sets its
 * id and state in its instance's element filter ({@link FieldEdit.ElementCount}); a migrated one does not move there
 * (its record does not carry the element id it leaves).
 *
 * <p>A migration moves each active element instance to its target element ({@code ELEMENT_MIGRATED}, with the target
 * definition's key and process id and the target element's id); the element's name, derived from the old definition,
 * is taken out so the bulk writer derives it from the new one. Element instances that had ended stay as they were, as
 * the engine leaves them.
 */
public final class FlowNodeInstanceHandler implements ExportHandler {

  private final String index;
  private final String instances;

  public FlowNodeInstanceHandler(String indexPrefix) {
    this.index = ReadModelIndex.FLOW_NODE_INSTANCE.indexName(indexPrefix);
    this.instances = ReadModelIndex.PROCESS_INSTANCE.indexName(indexPrefix);
  }

  @Override
  public boolean handles(Record<?> record) {
    if (record.getRecordType() != RecordType.EVENT || record.getValueType() != ValueType.PROCESS_INSTANCE) {
      return false;
    }
    var type = ((ProcessInstanceRecordValue) record.getValue()).getBpmnElementType();
    return type != BpmnElementType.PROCESS
        && type != BpmnElementType.SEQUENCE_FLOW
        && (record.getIntent() == ProcessInstanceIntent.ELEMENT_ACTIVATING
            || record.getIntent() == ProcessInstanceIntent.ELEMENT_COMPLETED
            || record.getIntent() == ProcessInstanceIntent.ELEMENT_TERMINATED
            || record.getIntent() == ProcessInstanceIntent.ELEMENT_MIGRATED);
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var value = (ProcessInstanceRecordValue) record.getValue();
    long key = record.getKey();
    String date = Dates.of(record.getTimestamp());
    String state = switch ((ProcessInstanceIntent) record.getIntent()) {
      case ELEMENT_ACTIVATING -> "ACTIVE";
      case ELEMENT_COMPLETED -> "COMPLETED";
      case ELEMENT_MIGRATED -> null;
      default -> "TERMINATED";
    };
    // the element filter's id and state of this element instance, on its process instance (ADR 15)
    // (an element completes or terminates without an open incident: the engine resolves it first, or the counts even
    // out when it writes the resolution after)
    DocumentChange onInstance = state == null ? null
        : DocumentChange.update(instances, value.getProcessInstanceKey(), record.getPosition())
            .edit(new FieldEdit.ElementCount(value.getElementId(), state.equals("ACTIVE") ? null : "ACTIVE", false, state,
                false))
            .put(ProcessInstanceHandler.LAST_UPDATE, date)
            .build();
    DocumentChange own =
        switch ((ProcessInstanceIntent) record.getIntent()) {
          case ELEMENT_ACTIVATING ->
              DocumentChange.create(index, key, record.getPosition())
                  .put("key", key)
                  .put("processInstanceKey", value.getProcessInstanceKey())
                  .put("processDefinitionKey", value.getProcessDefinitionKey())
                  .put("bpmnProcessId", value.getBpmnProcessId())
                  .put("elementId", value.getElementId())
                  .put("type", value.getBpmnElementType().name())
                  // the element instance it runs in (v2's elementInstanceScopeKey); the process itself has none (-1)
                  .put("flowScopeKey", value.getFlowScopeKey() < 0 ? null : value.getFlowScopeKey())
                  .put("state", "ACTIVE")
                  .put("startDate", date)
                  .put("tenantId", value.getTenantId())
                  .put("partitionId", record.getPartitionId())
                  .build();
          case ELEMENT_COMPLETED ->
              DocumentChange.update(index, key, record.getPosition())
                  .put("state", "COMPLETED").put("endDate", date).build();
          case ELEMENT_MIGRATED ->
              DocumentChange.update(index, key, record.getPosition())
                  .put("processDefinitionKey", value.getProcessDefinitionKey())
                  .put("bpmnProcessId", value.getBpmnProcessId())
                  .put("elementId", value.getElementId())
                  .edit(new FieldEdit.Remove("elementName"))
                  .build();
          default ->
              DocumentChange.update(index, key, record.getPosition())
                  .put("state", "TERMINATED").put("endDate", date).build();
        };
    // a migrated element instance keeps its place in the element filter: its record names only its new element
    return state == null ? List.of(own) : List.of(own, onInstance);
  }
}
