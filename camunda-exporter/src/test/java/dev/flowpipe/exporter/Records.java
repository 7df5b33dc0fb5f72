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
    return element(position, instanceKey, instanceKey, "order", BpmnElementType.PROCESS, intent);
  }

  static Record<?> variableCreated(long position, long key, String name, String value) {
    return event(position, key, ValueType.VARIABLE, io.camunda.zeebe.protocol.record.intent.VariableIntent.CREATED)
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

  /** An element (a task) of an instance, as the engine writes its life cycle. */
  static Record<?> element(long position, long key, long instanceKey, String elementId, ProcessInstanceIntent intent) {
    return element(position, key, instanceKey, elementId, BpmnElementType.SERVICE_TASK, intent);
  }

  private static Record<?> element(long position, long key, long instanceKey, String elementId, BpmnElementType type,
      ProcessInstanceIntent intent) {
    boolean process = type == BpmnElementType.PROCESS;
    return event(position, key, ValueType.PROCESS_INSTANCE, intent)
        .withValue(
            ImmutableProcessInstanceRecordValue.builder()
                .withBpmnProcessId("order")
                .withVersion(1)
                .withProcessDefinitionKey(DEFINITION_KEY)
                .withProcessInstanceKey(instanceKey)
                .withElementId(elementId)
                .withFlowScopeKey(process ? -1 : instanceKey)
                .withBpmnElementType(type)
                .withParentProcessInstanceKey(-1)
                .withParentElementInstanceKey(-1)
                .withTenantId("<default>")
                .build())
        .build();
  }

  /** An incident of an element instance. */
  static Record<?> incident(long position, long key, long instanceKey, long elementInstanceKey, String elementId,
      io.camunda.zeebe.protocol.record.intent.IncidentIntent intent, String message) {
    return event(position, key, ValueType.INCIDENT, intent)
        .withValue(
            io.camunda.zeebe.protocol.record.value.ImmutableIncidentRecordValue.builder()
                .withErrorType(io.camunda.zeebe.protocol.record.value.ErrorType.JOB_NO_RETRIES)
                .withErrorMessage(message)
                .withBpmnProcessId("order")
                .withProcessDefinitionKey(DEFINITION_KEY)
                .withProcessInstanceKey(instanceKey)
                .withElementId(elementId)
                .withElementInstanceKey(elementInstanceKey)
                .withJobKey(-1)
                .withTenantId("<default>")
                .build())
        .build();
  }

  /** A variable of one instance in one scope, as the engine writes it (value as JSON text). */
  static Record<?> variable(long position, long key, io.camunda.zeebe.protocol.record.intent.VariableIntent intent,
      long scopeKey, long instanceKey, String name, String value) {
    return event(position, key, ValueType.VARIABLE, intent)
        .withValue(
            io.camunda.zeebe.protocol.record.value.ImmutableVariableRecordValue.builder()
                .withName(name)
                .withValue(value)
                .withScopeKey(scopeKey)
                .withProcessInstanceKey(instanceKey)
                .withBpmnProcessId("order")
                .withProcessDefinitionKey(DEFINITION_KEY)
                .withTenantId("<default>")
                .build())
        .build();
  }

  static Record<?> job(long position, long jobKey, long instanceKey, JobIntent intent, int retries, String error) {
    return event(position, jobKey, ValueType.JOB, intent)
        .withValue(
            ImmutableJobRecordValue.builder()
                .withType("work")
                .withProcessInstanceKey(instanceKey)
                .withElementInstanceKey(instanceKey + 1)
                .withElementId("task")
                .withBpmnProcessId("order")
                .withProcessDefinitionKey(DEFINITION_KEY)
                .withRetries(retries)
                .withErrorMessage(error)
                .withTenantId("<default>")
                .build())
        .build();
  }

  private static ImmutableRecord.Builder<io.camunda.zeebe.protocol.record.RecordValue> event(
      long position, long key, ValueType valueType, io.camunda.zeebe.protocol.record.intent.Intent intent) {
    return ImmutableRecord.builder()
        .withPosition(position)
        .withKey(key)
        .withTimestamp(1_700_000_000_000L + position)
        .withPartitionId(1)
        .withRecordType(RecordType.EVENT)
        .withValueType(valueType)
        .withIntent(intent);
  }

  /**
   * A record no handler writes anything for: an instance's ELEMENT_ACTIVATED (its document is written from
   * ELEMENT_ACTIVATING; a job's MIGRATED, used here before, changes the job's document since issue 35).
   */
  static Record<?> unhandled(long position) {
    return processInstance(position, position, ProcessInstanceIntent.ELEMENT_ACTIVATED);
  }
}
