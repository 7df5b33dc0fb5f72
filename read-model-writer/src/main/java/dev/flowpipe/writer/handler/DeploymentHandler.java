package dev.flowpipe.writer.handler;

import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.DecisionRequirementsIntent;
import io.camunda.zeebe.protocol.record.intent.ProcessIntent;
import io.camunda.zeebe.protocol.record.value.deployment.DecisionRequirementsRecordValue;
import io.camunda.zeebe.protocol.record.value.deployment.Process;
import java.util.List;

/**
 * Learns the names of every process deployed, on every partition (a deployment is distributed to each before any
 * instance of it can start there), and changes no document. Why: only the partition the definition's key encodes
 * writes the definition's document, and another partition's instances of it may be written first; with what its own
 * log told it, a partition names its instances without waiting for another's exporter, so the names depend on this
 * log alone.
 *
 * <p>It learns each DRD's name and version too, which its decisions' documents keep for sorting: the DRD's record comes
 * before its decisions' in the log of the partition that writes them, so the decisions of a bulk never wait for a
 * DRD document another bulk (perhaps still in flight) writes.
 */
public final class DeploymentHandler implements ExportHandler {

  private final DeployedDefinitions definitions;

  public DeploymentHandler(DeployedDefinitions definitions) {
    this.definitions = definitions;
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && (record.getValueType() == ValueType.PROCESS && record.getIntent() == ProcessIntent.CREATED
            || record.getValueType() == ValueType.DECISION_REQUIREMENTS
                && record.getIntent() == DecisionRequirementsIntent.CREATED);
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    if (record.getValue() instanceof DecisionRequirementsRecordValue requirements) {
      definitions.requirementsDeployed(requirements.getDecisionRequirementsKey(),
          requirements.getDecisionRequirementsName(), requirements.getDecisionRequirementsVersion());
      return List.of();
    }
    Process process = (Process) record.getValue();
    // read now: the broker reuses the record object
    BpmnNames names = BpmnNames.read(process.getResource(), process.getBpmnProcessId());
    String versionTag = process.getVersionTag();
    definitions.deployed(process.getProcessDefinitionKey(), names.processName(),
        versionTag == null || versionTag.isEmpty() ? null : versionTag, names);
    return List.of();
  }
}
