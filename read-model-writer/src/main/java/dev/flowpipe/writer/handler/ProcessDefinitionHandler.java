package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import io.camunda.zeebe.protocol.Protocol;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.ProcessIntent;
import io.camunda.zeebe.protocol.record.value.deployment.Process;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A deployed process version becomes one process-definition document, with its BPMN XML. Deployments are distributed
 * to every partition; only the partition that created the definition (the one its key encodes) exports it, so the
 * document does not depend on which partition's copy came first.
 *
 * <p>A deleted definition (Zeebe's resource deletion: {@code DELETED}, distributed like the deployment) stays as a
 * document marked {@code deleted}, as Camunda's own exporter marks it ({@code isDeleted}), and searches leave it out.
 * Why not remove the document: its finished instances stay in the read model (Zeebe 8.6 refuses to delete a definition
 * with running instances, and deletes no history), and their names and diagram come from it; and a mark is exact under
 * replay with no tombstone to keep (the store's version guard keeps the marked version over a replayed CREATED).
 */
public final class ProcessDefinitionHandler implements ExportHandler {

  private final String index;

  public ProcessDefinitionHandler(String indexPrefix) {
    this.index = ReadModelIndex.PROCESS_DEFINITION.indexName(indexPrefix);
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && record.getValueType() == ValueType.PROCESS
        && (record.getIntent() == ProcessIntent.CREATED || record.getIntent() == ProcessIntent.DELETED)
        && Protocol.decodePartitionId(((Process) record.getValue()).getProcessDefinitionKey())
            == record.getPartitionId();
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    Process process = (Process) record.getValue();
    if (record.getIntent() == ProcessIntent.DELETED) {
      return List.of(DocumentChange.update(index, process.getProcessDefinitionKey(), record.getPosition())
          .put("deleted", true)
          .build());
    }
    byte[] resource = process.getResource();
    return List.of(
        DocumentChange.create(index, process.getProcessDefinitionKey(), record.getPosition())
            .put("key", process.getProcessDefinitionKey())
            .put("bpmnProcessId", process.getBpmnProcessId())
            .put("version", process.getVersion())
            .put("name", BpmnNames.read(resource, process.getBpmnProcessId()).processName())
            .put("versionTag", process.getVersionTag() == null || process.getVersionTag().isEmpty()
                ? null : process.getVersionTag())
            .put("resourceName", process.getResourceName())
            .put("bpmnXml", new String(resource, StandardCharsets.UTF_8))
            .put("hasStartForm", StartForm.of(resource, process.getBpmnProcessId()))
            .put("tenantId", process.getTenantId())
            .put("partitionId", record.getPartitionId())
            .build());
  }
}
