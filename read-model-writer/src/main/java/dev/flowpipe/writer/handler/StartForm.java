package dev.flowpipe.writer.handler;

import java.io.ByteArrayInputStream;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Whether a deployed process has a start form (Camunda's v2 {@code hasStartForm}): a start event directly inside the
 * process element with the definition's id carries a Zeebe form definition with a form key or a form id. A definition
 * never changes once deployed, so the answer is exact under replay.
 */
final class StartForm {

  private StartForm() {}

  static boolean of(byte[] bpmn, String bpmnProcessId) {
    XMLInputFactory factory = XMLInputFactory.newFactory();
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    try {
      XMLStreamReader reader = factory.createXMLStreamReader(new ByteArrayInputStream(bpmn));
      int depth = 0;
      int processDepth = -1;
      int startEventDepth = -1;
      while (reader.hasNext()) {
        int event = reader.next();
        if (event == XMLStreamConstants.END_ELEMENT) {
          if (depth == startEventDepth) {
            startEventDepth = -1;
          } else if (depth == processDepth) {
            processDepth = -1;
          }
          depth--;
          continue;
        }
        if (event != XMLStreamConstants.START_ELEMENT) {
          continue;
        }
        depth++;
        String name = reader.getLocalName();
        if (name.equals("process") && bpmnProcessId.equals(reader.getAttributeValue(null, "id"))) {
          processDepth = depth;
        } else if (name.equals("startEvent") && processDepth > 0 && depth == processDepth + 1) {
          startEventDepth = depth;
        } else if (name.equals("formDefinition") && startEventDepth > 0
            && (present(reader.getAttributeValue(null, "formKey")) || present(reader.getAttributeValue(null, "formId")))) {
          return true;
        }
      }
    } catch (XMLStreamException e) {
      // the engine accepted the resource, so this cannot really happen; no form found so far
    }
    return false;
  }

  private static boolean present(String value) {
    return value != null && !value.isBlank();
  }
}
