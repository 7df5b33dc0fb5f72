package dev.flowpipe.exporter;

import io.camunda.zeebe.protocol.record.ImmutableRecord;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.JobIntent;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent;
import io.camunda.zeebe.protocol.record.value.BpmnElementType;
import io.camunda.zeebe.protocol.record.value.ImmutableJobRecordValue;
import io.camunda.zeebe.protocol.record.value.ImmutableProcessInstanceRecordValue;

/** Engine records for unit tests, shaped as the engine writes them. */
final class Records {

  static final long DEFINITION_KEY = 2251799813685249L;

  private Records() {}

  static Record<?> processInstance(long position, long instanceKey, ProcessInstanceIntent intent) {
    return ImmutableRecord.builder()
        .withPosition(position)
        .withKey(instanceKey)
        .withTimestamp(1_700_000_000_000L + position)
        .withPartitionId(1)
        .withRecordType(RecordType.EVENT)
        .withValueType(ValueType.PROCESS_INSTANCE)
        .withIntent(intent)
        .withValue(
            ImmutableProcessInstanceRecordValue.builder()
                .withBpmnProcessId("order")
                .withVersion(1)
                .withProcessDefinitionKey(DEFINITION_KEY)
                .withProcessInstanceKey(instanceKey)
                .withElementId("order")
                .withFlowScopeKey(-1)
                .withBpmnElementType(BpmnElementType.PROCESS)
                .withParentProcessInstanceKey(-1)
                .withParentElementInstanceKey(-1)
                .withTenantId("<default>")
                .build())
        .build();
  }

  static Record<?> variableCreated(long position, long key, String name, String value) {
    return ImmutableRecord.builder()
        .withPosition(position)
        .withKey(key)
        .withTimestamp(1_700_000_000_000L + position)
        .withPartitionId(1)
        .withRecordType(RecordType.EVENT)
        .withValueType(ValueType.VARIABLE)
        .withIntent(io.camunda.zeebe.protocol.record.intent.VariableIntent.CREATED)
        .withValue(
            io.camunda.zeebe.protocol.record.value.ImmutableVariableRecordValue.builder()
                .withName(name)
                .withValue(value)
                .withScopeKey(100)
                .withProcessInstanceKey(100)
                .withTenantId("<default>")
                .build())
        .build();
  }

  /** A record no handler writes anything for (a job migrated to another process version). */
  static Record<?> unhandled(long position) {
    return ImmutableRecord.builder()
        .withPosition(position)
        .withKey(position)
        .withTimestamp(1_700_000_000_000L + position)
        .withPartitionId(1)
        .withRecordType(RecordType.EVENT)
        .withValueType(ValueType.JOB)
        .withIntent(JobIntent.MIGRATED)
        .withValue(ImmutableJobRecordValue.builder().withType("work").build())
        .build();
  }
}
