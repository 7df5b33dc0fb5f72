package dev.flowpipe.writer.handler;

import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent;
import io.camunda.zeebe.protocol.record.value.BpmnElementType;
import io.camunda.zeebe.protocol.record.value.ProcessInstanceRecordValue;
import java.util.List;

/**
 * Learns each instance's parent as the instance starts, and the definition it runs from its start and each migration
 * on, in log order, and changes no document. Why: the documents of
 * an instance (sequence flows, decision instances, incidents) take its root at their first flush and are
 * often never written again; the instance's own document may be in a bulk still in flight, or lost with a crash before
 * the replay that writes them, so the root cannot depend on reading it. A called instance starts on its caller's
 * partition after the caller, so the writer has seen the caller start, or the caller's document was acknowledged
 * before the writer's resume point and is in the store.
 */
public final class CallHierarchyHandler implements ExportHandler {

  private final StartedInstances instances;

  public CallHierarchyHandler(StartedInstances instances) {
    this.instances = instances;
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && record.getValueType() == ValueType.PROCESS_INSTANCE
        && (record.getIntent() == ProcessInstanceIntent.ELEMENT_ACTIVATING
            || record.getIntent() == ProcessInstanceIntent.ELEMENT_MIGRATED)
        && ((ProcessInstanceRecordValue) record.getValue()).getBpmnElementType() == BpmnElementType.PROCESS;
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var instance = (ProcessInstanceRecordValue) record.getValue();
    if (record.getIntent() == ProcessInstanceIntent.ELEMENT_ACTIVATING) {
      instances.started(instance.getProcessInstanceKey(), instance.getParentProcessInstanceKey());
    }
    instances.runs(instance.getProcessInstanceKey(), record.getPosition(), instance.getProcessDefinitionKey());
    return List.of();
  }
}
