package dev.flowpipe.writer.handler;

import static org.assertj.core.api.Assertions.assertThat;

import io.camunda.zeebe.protocol.record.ImmutableRecord;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.IncidentIntent;
import io.camunda.zeebe.protocol.record.intent.Intent;
import io.camunda.zeebe.protocol.record.value.ErrorType;
import io.camunda.zeebe.protocol.record.value.ImmutableIncidentRecordValue;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class IncidentAlertHandlerTest {

  private static final IncidentAlertHandler HANDLER = new IncidentAlertHandler("flowpipe");

  private static Record<?> incident(Intent intent, RecordType type) {
    return ImmutableRecord.builder().withPosition(77).withKey(500).withPartitionId(2).withTimestamp(1_764_300_000_000L)
        .withRecordType(type).withValueType(ValueType.INCIDENT).withIntent(intent)
        .withValue(ImmutableIncidentRecordValue.builder().withProcessInstanceKey(40).withProcessDefinitionKey(7)
            .withBpmnProcessId("order").withElementInstanceKey(41).withElementId("charge")
            .withErrorType(ErrorType.JOB_NO_RETRIES).withErrorMessage("card declined").withTenantId("<default>")
            .build())
        .build();
  }

  @Nested
  class ANewIncident {

    @Test
    void armsOneAlertWithTheIncidentKeyAsIdVersionedByItsPosition() {
      List<DocumentChange> changes = HANDLER.changes(incident(IncidentIntent.CREATED, RecordType.EVENT));

      assertThat(changes).singleElement().satisfies(change -> {
        assertThat(change.index()).isEqualTo("flowpipe-alert-v2");
        assertThat(change.id()).isEqualTo("500");
        assertThat(change.position()).isEqualTo(77);
        assertThat(change.creates()).as("the whole document: written without a read").isTrue();
        Map<String, Object> document = new HashMap<>();
        change.applyTo(document);
        assertThat(document).containsEntry("state", "NEW").containsEntry("key", 500L)
            .containsEntry("processInstanceKey", 40L).containsEntry("errorType", "JOB_NO_RETRIES")
            .containsEntry("errorMessage", "card declined").containsEntry("creationTime", "2025-11-28T03:20:00Z")
            .containsEntry("partitionId", 2);
      });
    }
  }

  @Nested
  class NoAlert {

    @Test
    void forAResolvedOrMigratedIncidentOrACommand() {
      assertThat(HANDLER.handles(incident(IncidentIntent.RESOLVED, RecordType.EVENT))).isFalse();
      assertThat(HANDLER.handles(incident(IncidentIntent.MIGRATED, RecordType.EVENT))).isFalse();
      assertThat(HANDLER.handles(incident(IncidentIntent.RESOLVE, RecordType.COMMAND))).isFalse();
      assertThat(HANDLER.handles(incident(IncidentIntent.CREATED, RecordType.EVENT))).isTrue();
    }
  }
}
