package dev.flowpipe.writer.handler;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The names a deployed BPMN resource gives its process and its elements, read once per definition. A definition never
 * changes once deployed, so what is read here is the same however often and whenever it is read: names derived from
 * it are exact under replay.
 *
 * @param processName the {@code name} of the process element with the definition's id, or null without one
 * @param elementNames the {@code name} of each element that has an {@code id} (elements without a name are absent)
 */
public record BpmnNames(String processName, Map<String, String> elementNames) {

  public BpmnNames {
    elementNames = Map.copyOf(elementNames);
  }

  /** The element's name; its id where the BPMN gives it none (as Operate shows such an element). */
  public String elementName(String elementId) {
    return elementNames.getOrDefault(elementId, elementId);
  }

  /** Reads the names of a resource the engine accepted; an unreadable one yields what was read before the fault. */
  public static BpmnNames read(String bpmnXml, String bpmnProcessId) {
    return read(bpmnXml.getBytes(StandardCharsets.UTF_8), bpmnProcessId);
  }

  public static BpmnNames read(byte[] bpmn, String bpmnProcessId) {
    XMLInputFactory factory = XMLInputFactory.newFactory();
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    String processName = null;
    Map<String, String> names = new HashMap<>();
    try {
      XMLStreamReader reader = factory.createXMLStreamReader(new ByteArrayInputStream(bpmn));
      while (reader.hasNext()) {
        if (reader.next() != XMLStreamConstants.START_ELEMENT) {
          continue;
        }
        String id = reader.getAttributeValue(null, "id");
        String name = reader.getAttributeValue(null, "name");
        if (id == null || name == null) {
          continue;
        }
        if ("process".equals(reader.getLocalName()) && id.equals(bpmnProcessId)) {
          processName = name;
        } else {
          names.putIfAbsent(id, name);
        }
      }
    } catch (XMLStreamException e) {
      // the engine accepted the resource, so this cannot really happen; what was read stands
    }
    return new BpmnNames(processName, names);
  }
}
