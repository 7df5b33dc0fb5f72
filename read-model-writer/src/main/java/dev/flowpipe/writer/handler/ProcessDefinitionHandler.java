package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import io.camunda.zeebe.protocol.Protocol;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.ProcessIntent;
import io.camunda.zeebe.protocol.record.value.deployment.Process;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * A deployed process version becomes one process-definition document, with its BPMN XML. Deployments are distributed
 * to every partition; only the partition that created the definition (the one its key encodes) exports it, so the
 * document does not depend on which partition's copy came first.
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
        && record.getIntent() == ProcessIntent.CREATED
        && Protocol.decodePartitionId(((Process) record.getValue()).getProcessDefinitionKey())
            == record.getPartitionId();
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    Process process = (Process) record.getValue();
    byte[] resource = process.getResource();
    return List.of(
        DocumentChange.create(index, process.getProcessDefinitionKey(), record.getPosition())
            .put("key", process.getProcessDefinitionKey())
            .put("bpmnProcessId", process.getBpmnProcessId())
            .put("version", process.getVersion())
            .put("name", processName(resource, process.getBpmnProcessId()))
            .put("resourceName", process.getResourceName())
            .put("bpmnXml", new String(resource, StandardCharsets.UTF_8))
            .put("tenantId", process.getTenantId())
            .put("partitionId", record.getPartitionId())
            .build());
  }

  /** The {@code name} attribute of the process element with this id, or null if it has none. */
  static String processName(byte[] bpmn, String bpmnProcessId) {
    XMLInputFactory factory = XMLInputFactory.newFactory();
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    try {
      XMLStreamReader reader = factory.createXMLStreamReader(new ByteArrayInputStream(bpmn));
      while (reader.hasNext()) {
        if (reader.next() == XMLStreamConstants.START_ELEMENT
            && "process".equals(reader.getLocalName())
            && bpmnProcessId.equals(reader.getAttributeValue(null, "id"))) {
          return reader.getAttributeValue(null, "name");
        }
      }
    } catch (XMLStreamException e) {
      // the engine accepted the resource, so this cannot really happen; a missing name is harmless
    }
    return null;
  }
}
