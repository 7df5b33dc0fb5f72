package dev.flowpipe.exporter.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.DocumentWrite;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.ProcessIntent;
import io.camunda.zeebe.protocol.record.value.deployment.Process;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/** A deployed process version becomes one process-definition document, with its BPMN XML. */
public final class ProcessDefinitionHandler implements ExportHandler {

  private final String index;

  public ProcessDefinitionHandler(String indexPrefix) {
    this.index = ReadModelIndex.PROCESS_DEFINITION.indexName(indexPrefix);
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && record.getValueType() == ValueType.PROCESS
        && record.getIntent() == ProcessIntent.CREATED;
  }

  @Override
  public List<DocumentWrite> writes(Record<?> record) {
    Process process = (Process) record.getValue();
    String xml = new String(process.getResource(), StandardCharsets.UTF_8);
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("key", process.getProcessDefinitionKey());
    document.put("bpmnProcessId", process.getBpmnProcessId());
    document.put("version", process.getVersion());
    document.put("name", processName(process.getResource(), process.getBpmnProcessId()));
    document.put("resourceName", process.getResourceName());
    document.put("bpmnXml", xml);
    document.put("tenantId", process.getTenantId());
    document.put("partitionId", record.getPartitionId());
    // the definition never changes after deployment: a full replace, versioned by position
    return List.of(
        new DocumentWrite.Replace(
            index, String.valueOf(process.getProcessDefinitionKey()), record.getPosition(), document));
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
