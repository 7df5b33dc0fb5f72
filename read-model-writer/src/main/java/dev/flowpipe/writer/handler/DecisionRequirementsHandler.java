package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import io.camunda.zeebe.protocol.Protocol;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.DecisionRequirementsIntent;
import io.camunda.zeebe.protocol.record.value.deployment.DecisionRequirementsRecordValue;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A deployed DRD (decision requirements, one version) becomes one document with its DMN XML, read from the resource
 * inside {@code export()} (the broker reuses the record); its deletion marks it {@code deleted}. Only the partition its
 * key encodes writes it, as for process definitions. Replay-safe as {@link DecisionHandler}.
 */
public final class DecisionRequirementsHandler implements ExportHandler {

  private final String index;

  public DecisionRequirementsHandler(String indexPrefix) {
    this.index = ReadModelIndex.DECISION_REQUIREMENTS.indexName(indexPrefix);
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && record.getValueType() == ValueType.DECISION_REQUIREMENTS
        && (record.getIntent() == DecisionRequirementsIntent.CREATED
            || record.getIntent() == DecisionRequirementsIntent.DELETED)
        && Protocol.decodePartitionId(((DecisionRequirementsRecordValue) record.getValue()).getDecisionRequirementsKey())
            == record.getPartitionId();
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var requirements = (DecisionRequirementsRecordValue) record.getValue();
    long key = requirements.getDecisionRequirementsKey();
    if (record.getIntent() == DecisionRequirementsIntent.DELETED) {
      return List.of(DocumentChange.update(index, key, record.getPosition()).put("deleted", true).build());
    }
    return List.of(DocumentChange.create(index, key, record.getPosition())
        .put("key", key)
        .put("decisionRequirementsId", requirements.getDecisionRequirementsId())
        .put("name", requirements.getDecisionRequirementsName())
        .put("version", requirements.getDecisionRequirementsVersion())
        .put("resourceName", requirements.getResourceName())
        .put("dmnXml", new String(requirements.getResource(), StandardCharsets.UTF_8))
        .put("tenantId", requirements.getTenantId())
        .put("partitionId", record.getPartitionId())
        .build());
  }
}
