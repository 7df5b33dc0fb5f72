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
 * The process element's life cycle becomes the process-instance document: ACTIVE when it activates, COMPLETED or
 * CANCELED when it ends. A call activity's child instance carries its parent's instance and element keys.
 *
 * <p>A migration (Zeebe 8.6's {@code MigrateProcessInstance}) writes {@code ELEMENT_MIGRATED} for the process element
 * first, carrying the target definition's key, process id and version: the instance takes them, and gives up the name
 * and version tag taken from the old definition, which the bulk writer then derives from the new one ({@link
 * FieldEdit.Remove}). The migration command's own {@code MIGRATED} event carries only the instance key, the target
 * key and the mapping: the per-element records are what says what changed.
 */
public final class ProcessInstanceHandler implements ExportHandler {

  /**
   * The state's place in the order of Camunda's v2 enum (ACTIVE, COMPLETED, TERMINATED), which the stored names
   * (ACTIVE, CANCELED, COMPLETED) do not sort in: the web app sorts {@code state} on this.
   */
  static final int STATE_ORDER_ACTIVE = 0;
  static final int STATE_ORDER_COMPLETED = 1;
  static final int STATE_ORDER_TERMINATED = 2;

  /**
   * When a record of the instance (its own, an element's, a variable's, an incident's, a job's failure or end) was
   * last written to the log: the stuck-instance list's "last updated" (issue 36). Every handler that changes the
   * instance document sets it, from the record's timestamp, so a replay sets the same value.
   */
  public static final String LAST_UPDATE = "lastUpdateDate";

  /**
   * The definitions the instance ran, each since the position of its start or migration ({@link FieldEdit.KeySince}):
   * a message correlation takes the one at its own position from it ({@code DerivedFields}), exact whatever the
   * writer's resume point. Stored, not indexed.
   */
  public static final String DEFINITION_HISTORY = "processDefinitionHistory";

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
            || record.getIntent() == ProcessInstanceIntent.ELEMENT_TERMINATED
            || record.getIntent() == ProcessInstanceIntent.ELEMENT_MIGRATED);
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var value = (ProcessInstanceRecordValue) record.getValue();
    long key = value.getProcessInstanceKey();
    String date = Dates.of(record.getTimestamp());
    return List.of(
        switch ((ProcessInstanceIntent) record.getIntent()) {
          // not a change that gives the whole document: the variables of the creation command come before the
          // process element's activation in the log, and their filter entries are already on this document (ADR 15)
          case ELEMENT_ACTIVATING ->
              DocumentChange.update(index, key, record.getPosition())
                  .put("key", key)
                  .put("processDefinitionKey", value.getProcessDefinitionKey())
                  .edit(new FieldEdit.KeySince(DEFINITION_HISTORY, record.getPosition(),
                      value.getProcessDefinitionKey()))
                  .put("bpmnProcessId", value.getBpmnProcessId())
                  .put("version", value.getVersion())
                  .put("state", "ACTIVE")
                  .put("stateOrder", STATE_ORDER_ACTIVE)
                  .put("incident", false)
                  .put("startDate", date)
                  .put(LAST_UPDATE, date)
                  .put("parentProcessInstanceKey", Dates.key(value.getParentProcessInstanceKey()))
                  .put("parentElementInstanceKey", Dates.key(value.getParentElementInstanceKey()))
                  .put("tenantId", value.getTenantId())
                  .put("partitionId", record.getPartitionId())
                  .build();
          case ELEMENT_COMPLETED ->
              DocumentChange.update(index, key, record.getPosition())
                  .put("state", "COMPLETED").put("stateOrder", STATE_ORDER_COMPLETED).put("endDate", date)
                  .put(LAST_UPDATE, date).build();
          case ELEMENT_MIGRATED ->
              DocumentChange.update(index, key, record.getPosition())
                  .put("processDefinitionKey", value.getProcessDefinitionKey())
                  .edit(new FieldEdit.KeySince(DEFINITION_HISTORY, record.getPosition(),
                      value.getProcessDefinitionKey()))
                  .put("bpmnProcessId", value.getBpmnProcessId())
                  .put("version", value.getVersion())
                  .edit(new FieldEdit.Remove("processDefinitionName"))
                  .edit(new FieldEdit.Remove("processDefinitionVersionTag"))
                  .put(LAST_UPDATE, date)
                  .build();
          default ->
              DocumentChange.update(index, key, record.getPosition())
                  .put("state", "CANCELED").put("stateOrder", STATE_ORDER_TERMINATED).put("endDate", date)
                  .put(LAST_UPDATE, date).build();
        });
  }
}
