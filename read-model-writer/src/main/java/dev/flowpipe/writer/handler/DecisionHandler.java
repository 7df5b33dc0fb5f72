package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import io.camunda.zeebe.protocol.Protocol;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.DecisionIntent;
import io.camunda.zeebe.protocol.record.value.deployment.DecisionRecordValue;
import java.util.List;

/**
 * A deployed decision (one version) becomes one decision-definition document; its deletion (a deleted resource) marks
 * it {@code deleted}, which the API hides. Like process definitions, deployments reach every partition and only the
 * partition its key encodes writes it.
 *
 * <p>Replay-safe: CREATED gives the whole document and DELETED, later in the log, one field; the store's position
 * guard keeps whatever the later record gave.
 */
public final class DecisionHandler implements ExportHandler {

  private final String index;

  public DecisionHandler(String indexPrefix) {
    this.index = ReadModelIndex.DECISION_DEFINITION.indexName(indexPrefix);
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && record.getValueType() == ValueType.DECISION
        && (record.getIntent() == DecisionIntent.CREATED || record.getIntent() == DecisionIntent.DELETED)
        && Protocol.decodePartitionId(((DecisionRecordValue) record.getValue()).getDecisionKey())
            == record.getPartitionId();
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var decision = (DecisionRecordValue) record.getValue();
    if (record.getIntent() == DecisionIntent.DELETED) {
      return List.of(DocumentChange.update(index, decision.getDecisionKey(), record.getPosition())
          .put("deleted", true).build());
    }
    String versionTag = decision.getVersionTag();
    return List.of(DocumentChange.create(index, decision.getDecisionKey(), record.getPosition())
        .put("key", decision.getDecisionKey())
        .put("decisionId", decision.getDecisionId())
        .put("name", decision.getDecisionName())
        .put("version", decision.getVersion())
        .put("versionTag", versionTag == null || versionTag.isEmpty() ? null : versionTag)
        .put("decisionRequirementsId", decision.getDecisionRequirementsId())
        .put("decisionRequirementsKey", decision.getDecisionRequirementsKey())
        .put("tenantId", decision.getTenantId())
        .put("partitionId", record.getPartitionId())
        .build());
  }
}
