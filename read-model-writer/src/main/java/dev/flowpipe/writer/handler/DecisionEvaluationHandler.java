package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.DecisionEvaluationIntent;
import io.camunda.zeebe.protocol.record.value.DecisionEvaluationRecordValue;
import io.camunda.zeebe.protocol.record.value.EvaluatedDecisionValue;
import io.camunda.zeebe.protocol.record.value.EvaluatedOutputValue;
import io.camunda.zeebe.protocol.record.value.MatchedRuleValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An evaluation of a DRD (a business rule task's, or a standalone {@code EvaluateDecision}) becomes one decision
 * instance per decision it evaluated, {@code <evaluationKey>-<n>} with n counted from 1 in the engine's order (the v2
 * API's {@code decisionEvaluationInstanceKey}, as Camunda's), each with its inputs, matched rules and their outputs,
 * and its result. In a FAILED evaluation the decision the engine names as failed is FAILED, with the failure message;
 * the ones evaluated before it are EVALUATED.
 *
 * <p>Replay-safe by its ids alone: an evaluation is one record, which gives every document whole, the same in any
 * replay. The documents name their process instance (when there is one) and so go with it under retention.
 */
public final class DecisionEvaluationHandler implements ExportHandler {

  private final String index;

  public DecisionEvaluationHandler(String indexPrefix) {
    this.index = ReadModelIndex.DECISION_INSTANCE.indexName(indexPrefix);
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && record.getValueType() == ValueType.DECISION_EVALUATION
        && (record.getIntent() == DecisionEvaluationIntent.EVALUATED
            || record.getIntent() == DecisionEvaluationIntent.FAILED);
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var evaluation = (DecisionEvaluationRecordValue) record.getValue();
    boolean failed = record.getIntent() == DecisionEvaluationIntent.FAILED;
    String date = Dates.of(record.getTimestamp());
    List<EvaluatedDecisionValue> decisions = evaluation.getEvaluatedDecisions();
    List<DocumentChange> changes = new ArrayList<>(decisions.size());
    for (int n = 1; n <= decisions.size(); n++) {
      EvaluatedDecisionValue decision = decisions.get(n - 1);
      boolean thisFailed = failed && decision.getDecisionId().equals(evaluation.getFailedDecisionId());
      String id = record.getKey() + "-" + n;
      changes.add(DocumentChange.create(index, id, record.getPosition())
          .put("decisionInstanceId", id)
          .put("evaluationKey", record.getKey())
          .put("state", thisFailed ? "FAILED" : "EVALUATED")
          .put("evaluationDate", date)
          .put("evaluationFailure", thisFailed ? evaluation.getEvaluationFailureMessage() : null)
          .put("decisionKey", decision.getDecisionKey())
          .put("decisionId", decision.getDecisionId())
          .put("decisionName", decision.getDecisionName())
          .put("decisionVersion", decision.getDecisionVersion())
          .put("decisionType", decision.getDecisionType())
          .put("decisionRequirementsKey", evaluation.getDecisionRequirementsKey())
          // the decision the evaluation was asked for; the others are the ones it requires (v2's root decision)
          .put("rootDecisionKey", evaluation.getDecisionKey())
          .put("decisionRequirementsId", evaluation.getDecisionRequirementsId())
          .put("result", decision.getDecisionOutput())
          .edit(new FieldEdit.PutRows("evaluatedInputs", decision.getEvaluatedInputs().stream()
              .map(input -> row("inputId", input.getInputId(), "inputName", input.getInputName(),
                  "inputValue", input.getInputValue()))
              .toList()))
          .edit(new FieldEdit.PutRows("matchedRules", decision.getMatchedRules().stream()
              .map(DecisionEvaluationHandler::matchedRule).toList()))
          // -1 for a standalone evaluation, kept as the engine writes it: Camunda answers it so, and its 8.8 client
          // reads these three keys as numbers that must be there
          .put("processDefinitionKey", evaluation.getProcessDefinitionKey())
          .put("processInstanceKey", evaluation.getProcessInstanceKey())
          .put("bpmnProcessId", emptyAsNull(evaluation.getBpmnProcessId()))
          .put("elementId", emptyAsNull(evaluation.getElementId()))
          .put("elementInstanceKey", evaluation.getElementInstanceKey())
          .put("tenantId", evaluation.getTenantId())
          .put("partitionId", record.getPartitionId())
          .build());
    }
    return changes;
  }

  private static Map<String, Object> matchedRule(MatchedRuleValue rule) {
    Map<String, Object> row = row("ruleId", rule.getRuleId(), "ruleIndex", rule.getRuleIndex());
    List<Map<String, Object>> outputs = new ArrayList<>();
    for (EvaluatedOutputValue output : rule.getEvaluatedOutputs()) {
      outputs.add(row("outputId", output.getOutputId(), "outputName", output.getOutputName(),
          "outputValue", output.getOutputValue()));
    }
    row.put("evaluatedOutputs", outputs);
    return row;
  }

  private static Map<String, Object> row(Object... namesAndValues) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      row.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return row;
  }

  private static String emptyAsNull(String text) {
    return text == null || text.isEmpty() ? null : text;
  }
}
