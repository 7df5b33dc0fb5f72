package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.VariableEntries;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.VariableIntent;
import io.camunda.zeebe.protocol.record.value.VariableRecordValue;
import java.util.List;

/**
 * A variable, created and updated, becomes one document per variable. A value longer than the limit is searchable by
 * its first {@code valueLimit} characters ({@code value}, {@code truncated = true}); the whole value is kept,
 * unindexed, in {@code fullValue}. Each variable also sets its entry of the variable filter on its process-instance
 * document ({@link VariableEntries}). The document also holds the key and process id of the definition its instance
 * runs, which a migration changes: Zeebe 8.6 then writes {@code MIGRATED} for each variable of each migrated element,
 * with the target definition and <em>no value</em> (msgpack nil), so that record changes those two fields and nothing
 * else.
 */
public final class VariableHandler implements ExportHandler {

  private final String index;
  private final String instances;
  private final int valueLimit;

  public VariableHandler(String indexPrefix, int valueLimit) {
    this.index = ReadModelIndex.VARIABLE.indexName(indexPrefix);
    this.instances = ReadModelIndex.PROCESS_INSTANCE.indexName(indexPrefix);
    this.valueLimit = valueLimit;
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && record.getValueType() == ValueType.VARIABLE
        && (record.getIntent() == VariableIntent.CREATED || record.getIntent() == VariableIntent.UPDATED
            || record.getIntent() == VariableIntent.MIGRATED);
  }

  /**
   * Created and updated alike: a variable record carries every field of the document, so each one gives the whole
   * document ({@code create}) and an update never needs the stored version (which for a large value would mean reading
   * it back from the store). A migration's record carries no value: it changes the definition fields of the stored
   * document (read back if need be, once per variable and migration).
   */
  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var variable = (VariableRecordValue) record.getValue();
    if (record.getIntent() == VariableIntent.MIGRATED) {
      return List.of(DocumentChange.update(index, record.getKey(), record.getPosition())
          .put("processDefinitionKey", variable.getProcessDefinitionKey())
          .put("bpmnProcessId", variable.getBpmnProcessId())
          .build());
    }
    String value = variable.getValue();
    boolean truncated = value.length() > valueLimit;
    return List.of(
        DocumentChange.create(index, record.getKey(), record.getPosition())
            .put("key", record.getKey())
            .put("scopeKey", variable.getScopeKey())
            .put("processInstanceKey", variable.getProcessInstanceKey())
            .put("processDefinitionKey", variable.getProcessDefinitionKey())
            .put("bpmnProcessId", variable.getBpmnProcessId())
            .put("name", variable.getName())
            .put("tenantId", variable.getTenantId())
            .put("partitionId", record.getPartitionId())
            .put("value", truncated ? value.substring(0, valueLimit) : value)
            .put("truncated", truncated)
            .put("fullValue", truncated ? value : null)
            .put("lastUpdate", Dates.of(record.getTimestamp()))
            .build(),
        // the variable filter's entry on its instance (any scope counts, as in Camunda): an update of that document,
        // ordered by position like every other, so a replay leaves it as one clean pass would (ADR 15)
        DocumentChange.update(instances, variable.getProcessInstanceKey(), record.getPosition())
            .edit(new FieldEdit.KeyedEntries(VariableEntries.SCOPED_FIELD, VariableEntries.FIELD,
                variable.getScopeKey() + ":" + VariableEntries.namePrefix(variable.getName()),
                List.of(VariableEntries.entry(variable.getName(), value))))
            .put(ProcessInstanceHandler.LAST_UPDATE, Dates.of(record.getTimestamp()))
            .build());
  }
}
