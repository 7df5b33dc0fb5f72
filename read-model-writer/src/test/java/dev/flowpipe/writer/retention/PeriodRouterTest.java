package dev.flowpipe.writer.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.writer.handler.DocumentChange;
import dev.flowpipe.schema.index.IndexLayout;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.retention.RetentionSettings;
import io.camunda.zeebe.protocol.record.ImmutableRecord;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import dev.flowpipe.writer.handler.DecisionEvaluationHandler;
import io.camunda.zeebe.protocol.record.intent.DecisionEvaluationIntent;
import io.camunda.zeebe.protocol.record.intent.JobBatchIntent;
import io.camunda.zeebe.protocol.record.intent.ProcessIntent;
import io.camunda.zeebe.protocol.record.value.ImmutableDecisionEvaluationRecordValue;
import io.camunda.zeebe.protocol.record.value.ImmutableEvaluatedDecisionValue;
import io.camunda.zeebe.protocol.record.value.ImmutableJobBatchRecordValue;
import io.camunda.zeebe.protocol.record.value.ImmutableJobRecordValue;
import io.camunda.zeebe.protocol.record.value.deployment.ImmutableProcess;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeriodRouterTest {

  private static final String PREFIX = "flowpipe";
  private static final String JOBS = ReadModelIndex.JOB.indexName(PREFIX);
  private static final RetentionSettings ON =
      new RetentionSettings(Duration.ofDays(30), Duration.ofDays(1), Duration.ofMinutes(10));

  @Test
  void tagsEachJobOfABatchWithItsOwnInstance() {
    Record<?> batch = ImmutableRecord.builder().withPosition(7).withKey(1).withPartitionId(2)
        .withRecordType(RecordType.EVENT).withValueType(ValueType.JOB_BATCH).withIntent(JobBatchIntent.ACTIVATED)
        .withValue(ImmutableJobBatchRecordValue.builder().withType("work").withJobKeys(List.of(11L, 21L))
            .withJobs(List.of(ImmutableJobRecordValue.builder().withProcessInstanceKey(10).build(),
                ImmutableJobRecordValue.builder().withProcessInstanceKey(20).build()))
            .build())
        .build();
    List<DocumentChange> changes = List.of(DocumentChange.update(JOBS, 11, 7).put("worker", "w").build(),
        DocumentChange.update(JOBS, 21, 7).put("worker", "w").build());

    List<DocumentChange> routed = new PeriodRouter(PREFIX, 2, ON, IndexLayout.singleNode("1s")).route(batch, changes);

    assertThat(routed).extracting(DocumentChange::index).containsExactly(JOBS + "|2|10", JOBS + "|2|20");
    assertThat(routed).extracting(change -> RoutedIndex.parse(change.index()).orElseThrow().instanceKey())
        .containsExactly(10L, 20L);
    assertThat(routed.getFirst().edits()).isEqualTo(changes.getFirst().edits());
  }

  @Test
  void routesABusinessRuleTasksDecisionInstancesWithTheirProcessInstanceAndLeavesStandaloneOnesInTheBase() {
    PeriodRouter router = new PeriodRouter(PREFIX, 1, ON, IndexLayout.singleNode("1s"));
    String decisions = ReadModelIndex.DECISION_INSTANCE.indexName(PREFIX);

    DecisionEvaluationHandler handler = new DecisionEvaluationHandler(PREFIX);

    List<DocumentChange> ofTask = router.route(evaluation(40), handler.changes(evaluation(40)));
    List<DocumentChange> standalone = router.route(evaluation(-1), handler.changes(evaluation(-1)));

    assertThat(ofTask).extracting(DocumentChange::index).containsExactly(decisions + "|1|40");
    assertThat(standalone).extracting(DocumentChange::index).containsExactly(decisions);
  }

  private static Record<?> evaluation(long processInstanceKey) {
    return ImmutableRecord.builder().withPosition(9).withKey(50).withPartitionId(1)
        .withRecordType(RecordType.EVENT).withValueType(ValueType.DECISION_EVALUATION)
        .withIntent(DecisionEvaluationIntent.EVALUATED)
        .withValue(ImmutableDecisionEvaluationRecordValue.builder().withProcessInstanceKey(processInstanceKey)
            .withEvaluatedDecisions(List.of(ImmutableEvaluatedDecisionValue.builder().withDecisionId("d").build()))
            .build())
        .build();
  }

  @Test
  void leavesProcessDefinitionsAndEverythingWithRetentionOffWhereTheyWere() {
    Record<?> deployed = ImmutableRecord.builder().withPosition(3).withKey(5).withPartitionId(1)
        .withRecordType(RecordType.EVENT).withValueType(ValueType.PROCESS).withIntent(ProcessIntent.CREATED)
        .withValue(ImmutableProcess.builder().withProcessDefinitionKey(5).build())
        .build();
    List<DocumentChange> definitions = List.of(
        DocumentChange.create(ReadModelIndex.PROCESS_DEFINITION.indexName(PREFIX), 5, 3).put("key", 5L).build());

    assertThat(new PeriodRouter(PREFIX, 1, ON, IndexLayout.singleNode("1s")).route(deployed, definitions))
        .isEqualTo(definitions);
    assertThat(new PeriodRouter(PREFIX, 1, RetentionSettings.off(), IndexLayout.singleNode("1s"))
        .route(deployed, definitions)).isSameAs(definitions);
  }
}
