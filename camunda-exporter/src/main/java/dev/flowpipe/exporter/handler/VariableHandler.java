package dev.flowpipe.exporter.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.VariableIntent;
import io.camunda.zeebe.protocol.record.value.VariableRecordValue;
import java.util.List;
import java.util.Map;

/**
 * A variable, created and updated, becomes one document per variable. A value longer than the limit is searchable by
 * its first {@code valueLimit} characters ({@code value}, {@code truncated = true}); the whole value is kept,
 * unindexed, in {@code fullValue}.
 */
public final class VariableHandler implements ExportHandler {

  private final String index;
  private final int valueLimit;

  public VariableHandler(String indexPrefix, int valueLimit) {
    this.index = ReadModelIndex.VARIABLE.indexName(indexPrefix);
    this.valueLimit = valueLimit;
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && record.getValueType() == ValueType.VARIABLE
        && (record.getIntent() == VariableIntent.CREATED || record.getIntent() == VariableIntent.UPDATED);
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var value = (VariableRecordValue) record.getValue();
    String date = Dates.of(record.getTimestamp());
    if (record.getIntent() == VariableIntent.CREATED) {
      return List.of(
          DocumentChange.create(index, record.getKey(), record.getPosition(), doc -> {
            doc.put("key", record.getKey());
            doc.put("scopeKey", value.getScopeKey());
            doc.put("processInstanceKey", value.getProcessInstanceKey());
            doc.put("name", value.getName());
            doc.put("tenantId", value.getTenantId());
            doc.put("partitionId", record.getPartitionId());
            putValue(doc, value.getValue(), date);
          }));
    }
    return List.of(
        DocumentChange.update(index, record.getKey(), record.getPosition(), doc -> putValue(doc, value.getValue(), date)));
  }

  private void putValue(Map<String, Object> doc, String value, String date) {
    boolean truncated = value.length() > valueLimit;
    doc.put("value", truncated ? value.substring(0, valueLimit) : value);
    doc.put("truncated", truncated);
    doc.put("fullValue", truncated ? value : null);
    doc.put("lastUpdate", date);
  }
}
