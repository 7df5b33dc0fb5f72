package dev.flowpipe.writer.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.camunda.zeebe.protocol.record.ImmutableRecord;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.DecisionEvaluationIntent;
import io.camunda.zeebe.protocol.record.value.ImmutableDecisionEvaluationRecordValue;
import io.camunda.zeebe.protocol.record.value.ImmutableEvaluatedDecisionValue;
import io.camunda.zeebe.protocol.record.value.ImmutableEvaluatedInputValue;
import io.camunda.zeebe.protocol.record.value.ImmutableEvaluatedOutputValue;
import io.camunda.zeebe.protocol.record.value.ImmutableMatchedRuleValue;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class DecisionEvaluationHandlerTest {

  private static final DecisionEvaluationHandler HANDLER = new DecisionEvaluationHandler("flowpipe");

  /** An evaluation (key 50) of "season" then "dish"; failed at "dish" when {@code failed}. */
  private static Record<?> evaluation(boolean failed) {
    var season = ImmutableEvaluatedDecisionValue.builder().withDecisionId("season").withDecisionKey(1)
        .withDecisionType("LITERAL_EXPRESSION").withDecisionOutput("\"Winter\"").build();
    var dish = ImmutableEvaluatedDecisionValue.builder().withDecisionId("dish").withDecisionKey(2)
        .withDecisionType("DECISION_TABLE").withDecisionOutput(failed ? "null" : "\"Roastbeef\"")
        .withEvaluatedInputs(List.of(ImmutableEvaluatedInputValue.builder().withInputId("i").withInputName("Season")
            .withInputValue("\"Winter\"").build()))
        .withMatchedRules(List.of(ImmutableMatchedRuleValue.builder().withRuleId("r1").withRuleIndex(1)
            .withEvaluatedOutputs(List.of(ImmutableEvaluatedOutputValue.builder().withOutputId("o")
                .withOutputName("Dish").withOutputValue("\"Roastbeef\"").build()))
            .build()))
        .build();
    return ImmutableRecord.builder().withPosition(9).withKey(50).withPartitionId(1).withTimestamp(0)
        .withRecordType(RecordType.EVENT).withValueType(ValueType.DECISION_EVALUATION)
        .withIntent(failed ? DecisionEvaluationIntent.FAILED : DecisionEvaluationIntent.EVALUATED)
        .withValue(ImmutableDecisionEvaluationRecordValue.builder().withProcessInstanceKey(40).withDecisionKey(2)
            .withEvaluatedDecisions(List.of(season, dish)).withFailedDecisionId(failed ? "dish" : "")
            .withEvaluationFailureMessage(failed ? "UNIQUE refuses two rules" : "").build())
        .build();
  }

  private static Map<String, Map<String, Object>> documents(Record<?> record) {
    Map<String, Map<String, Object>> documents = new HashMap<>();
    for (DocumentChange change : HANDLER.changes(record)) {
      Map<String, Object> document = new HashMap<>();
      change.applyTo(document);
      documents.put(change.id(), document);
    }
    return documents;
  }

  @Nested
  class AnEvaluation {

    @Test
    void givesOneWholeDocumentPerEvaluatedDecisionNumberedFromOneInTheEnginesOrder() {
      var changes = HANDLER.changes(evaluation(false));

      assertThat(changes).extracting(DocumentChange::id).containsExactly("50-1", "50-2");
      assertThat(changes).allSatisfy(change -> assertThat(change.creates()).isTrue());
      assertThat(documents(evaluation(false)).get("50-1")).containsEntry("decisionId", "season")
          .containsEntry("state", "EVALUATED").containsEntry("evaluationKey", 50L);
    }

    @Test
    void keepsTheInputsAndMatchedRulesWithTheirOutputs() {
      var dish = documents(evaluation(false)).get("50-2");

      assertThat(dish).containsEntry("evaluatedInputs",
          List.of(Map.of("inputId", "i", "inputName", "Season", "inputValue", "\"Winter\"")));
      assertThat(dish).containsEntry("matchedRules", List.of(Map.of("ruleId", "r1", "ruleIndex", 1, "evaluatedOutputs",
          List.of(Map.of("outputId", "o", "outputName", "Dish", "outputValue", "\"Roastbeef\"")))));
      assertThat(dish).containsEntry("result", "\"Roastbeef\"").containsEntry("processInstanceKey", 40L);
    }

    @Test
    void namesTheDecisionTheEvaluationWasAskedForAsTheRootOfEachEvaluatedDecision() {
      var documents = documents(evaluation(false));

      assertThat(documents.get("50-1")).containsEntry("decisionKey", 1L).containsEntry("rootDecisionKey", 2L);
      assertThat(documents.get("50-2")).containsEntry("decisionKey", 2L).containsEntry("rootDecisionKey", 2L);
    }

    @Test
    void holdsRowsNoCallerCanChange() {
      @SuppressWarnings("unchecked")
      var rules = (List<Map<String, Object>>) documents(evaluation(false)).get("50-2").get("matchedRules");

      assertThatThrownBy(() -> rules.getFirst().put("ruleId", "other"))
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }

  @Nested
  class AFailedEvaluation {

    @Test
    void isFailedAtTheDecisionTheEngineNamedWithItsMessageAndEvaluatedBefore() {
      var documents = documents(evaluation(true));

      assertThat(documents.get("50-1")).containsEntry("state", "EVALUATED").containsEntry("evaluationFailure", null);
      assertThat(documents.get("50-2")).containsEntry("state", "FAILED")
          .containsEntry("evaluationFailure", "UNIQUE refuses two rules");
    }
  }
}
