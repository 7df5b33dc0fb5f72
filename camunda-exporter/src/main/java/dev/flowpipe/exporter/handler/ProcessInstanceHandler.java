package dev.flowpipe.exporter.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.DocumentWrite;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent;
import io.camunda.zeebe.protocol.record.value.BpmnElementType;
import io.camunda.zeebe.protocol.record.value.ProcessInstanceRecordValue;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The process element's life cycle becomes the process-instance document: ACTIVE when it activates, COMPLETED or
 * CANCELED when it ends. Each event merges only the fields it knows, guarded by position.
 */
public final class ProcessInstanceHandler implements ExportHandler {

  private final String index;

  public ProcessInstanceHandler(String indexPrefix) {
    this.index = ReadModelIndex.PROCESS_INSTANCE.indexName(indexPrefix);
  }

  @Override
  public boolean handles(Record<?> record) {
    if (record.getRecordType() != RecordType.EVENT || record.getValueType() != ValueType.PROCESS_INSTANCE) {
      return false;
    }
    var value = (ProcessInstanceRecordValue) record.getValue();
    return value.getBpmnElementType() == BpmnElementType.PROCESS
        && (record.getIntent() == ProcessInstanceIntent.ELEMENT_ACTIVATING
            || record.getIntent() == ProcessInstanceIntent.ELEMENT_COMPLETED
            || record.getIntent() == ProcessInstanceIntent.ELEMENT_TERMINATED);
  }

  @Override
  public List<DocumentWrite> writes(Record<?> record) {
    var value = (ProcessInstanceRecordValue) record.getValue();
    Map<String, Object> fields = new LinkedHashMap<>();
    String date = Instant.ofEpochMilli(record.getTimestamp()).toString();
    switch ((ProcessInstanceIntent) record.getIntent()) {
      case ELEMENT_ACTIVATING -> {
        fields.put("key", value.getProcessInstanceKey());
        fields.put("processDefinitionKey", value.getProcessDefinitionKey());
        fields.put("bpmnProcessId", value.getBpmnProcessId());
        fields.put("version", value.getVersion());
        fields.put("state", "ACTIVE");
        fields.put("incident", false);
        fields.put("startDate", date);
        fields.put("parentProcessInstanceKey", positiveOrNull(value.getParentProcessInstanceKey()));
        fields.put("parentElementInstanceKey", positiveOrNull(value.getParentElementInstanceKey()));
        fields.put("tenantId", value.getTenantId());
        fields.put("partitionId", record.getPartitionId());
      }
      case ELEMENT_COMPLETED -> {
        fields.put("state", "COMPLETED");
        fields.put("endDate", date);
      }
      default -> {
        fields.put("state", "CANCELED");
        fields.put("endDate", date);
      }
    }
    return List.of(
        new DocumentWrite.Merge(index, String.valueOf(value.getProcessInstanceKey()), record.getPosition(), fields));
  }

  private static Long positiveOrNull(long key) {
    return key > 0 ? key : null;
  }
}
