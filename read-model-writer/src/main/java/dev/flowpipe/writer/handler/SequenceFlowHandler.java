package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent;
import io.camunda.zeebe.protocol.record.value.ProcessInstanceRecordValue;
import java.util.List;

/**
 * A sequence flow an instance took becomes one document per instance and flow, {@code <instanceKey>_<flowId>} (the
 * v2 API's {@code sequenceFlowId}): what a diagram highlights, however often a loop took the flow.
 *
 * <p>Replay-safe by its id alone: every {@code SEQUENCE_FLOW_TAKEN} of one flow in one instance gives the same whole
 * document, so writing it once or a hundred times, in any replay, leaves the same document.
 */
public final class SequenceFlowHandler implements ExportHandler {

  private final String index;

  public SequenceFlowHandler(String indexPrefix) {
    this.index = ReadModelIndex.SEQUENCE_FLOW.indexName(indexPrefix);
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && record.getValueType() == ValueType.PROCESS_INSTANCE
        && record.getIntent() == ProcessInstanceIntent.SEQUENCE_FLOW_TAKEN;
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var value = (ProcessInstanceRecordValue) record.getValue();
    String id = value.getProcessInstanceKey() + "_" + value.getElementId();
    return List.of(DocumentChange.create(index, id, record.getPosition())
        .put("sequenceFlowId", id)
        .put("processInstanceKey", value.getProcessInstanceKey())
        .put("processDefinitionKey", value.getProcessDefinitionKey())
        .put("bpmnProcessId", value.getBpmnProcessId())
        .put("elementId", value.getElementId())
        .put("tenantId", value.getTenantId())
        .put("partitionId", record.getPartitionId())
        .build());
  }
}
