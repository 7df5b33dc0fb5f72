package dev.flowpipe.webapp;

import dev.flowpipe.schema.index.ElementEntries;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.index.VariableEntries;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A small read model written through the store port, shaped as the exporter writes it:
 * <ul>
 *   <li>definitions 1 (order v1), 2 (order v2), 3 (payment v1);
 *   <li>30 instances, keys 1000 + i: order v1 for i < 10, order v2 for i < 20, payment v1 after; state by i % 3
 *       (0 COMPLETED, 1 ACTIVE, 2 CANCELED); an incident on i = 1, 13, 25; started at {@link #START} + i hours, ended an
 *       hour later unless active;
 *   <li>instance 1001: element instances 5001 (start, COMPLETED), 5002 (task, ACTIVE, incident 7001), variables 6001 x,
 *       6002 note, 6003 big (truncated); incidents 7001 (1001, ACTIVE), 7002 (1013, ACTIVE), 7003 (1025, RESOLVED);
 *       jobs 8001 (FAILED) and 8002 (ACTIVATED);
 *   <li>the variable filter's entries, as the writer keeps them ({@code name=value}, the value as JSON text): every
 *       instance holds tier "gold" (i % 4 == 0) or "silver"; 1001 also x 1, note "hello" and big (cut); 1002 also
 *       a=b 1 (a name holding =, escaped) and tier "gold" in a second scope;
 *   <li>the other filters' terms on the instances: element instances start (COMPLETED) and task (ACTIVE, incident) of
 *       1001, task (ACTIVE, incident) of 1013, task (COMPLETED) of 1025; open incidents' messages "no retries left" on
 *       1001 and "boom" on 1013 (with their hash codes); a job failed with retries left (8002) on 1004.
 * </ul>
 */
public final class ReadModelFixture {

  public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  public static final String XML =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><bpmn:definitions xmlns:bpmn=\"http://www.omg.org/spec/BPMN/20100524/MODEL\""
          + " id=\"d\" targetNamespace=\"t\"><bpmn:process id=\"order\" isExecutable=\"true\"/></bpmn:definitions>";

  private ReadModelFixture() {}

  public static void write(SearchStore store, String prefix, String refreshInterval) {
    new SchemaManager(store, prefix, refreshInterval).ensureSchema();
    List<DocumentWrite> writes = new ArrayList<>();
    String definitions = ReadModelIndex.PROCESS_DEFINITION.indexName(prefix);
    writes.add(doc(definitions, 1, Map.of("bpmnProcessId", "order", "version", 1, "name", "Order", "resourceName", "order.bpmn", "bpmnXml", XML,
        "hasStartForm", false)));
    writes.add(doc(definitions, 2, Map.of("bpmnProcessId", "order", "version", 2, "name", "Order", "resourceName", "order.bpmn", "bpmnXml", XML,
        "versionTag", "v2", "hasStartForm", false)));
    writes.add(doc(definitions, 3, Map.of("bpmnProcessId", "payment", "version", 1, "name", "Payment", "resourceName", "payment.bpmn", "bpmnXml", XML,
        "hasStartForm", true)));
    String instances = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    for (int i = 0; i < 30; i++) {
      writes.add(doc(instances, 1000 + i, instance(i)));
    }
    String elements = ReadModelIndex.FLOW_NODE_INSTANCE.indexName(prefix);
    writes.add(doc(elements, 5001, Map.of("processInstanceKey", 1001, "processDefinitionKey", 1, "bpmnProcessId", "order",
        "elementId", "start", "type", "START_EVENT", "state", "COMPLETED", "startDate", date(1), "endDate", date(1),
        "elementName", "Order placed", "flowScopeKey", 1001)));
    writes.add(doc(elements, 5002, Map.of("processInstanceKey", 1001, "processDefinitionKey", 1, "bpmnProcessId", "order",
        "elementId", "task", "type", "SERVICE_TASK", "state", "ACTIVE", "startDate", date(1), "incidentKey", 7001,
        "elementName", "Ship", "flowScopeKey", 1001)));
    String variables = ReadModelIndex.VARIABLE.indexName(prefix);
    writes.add(doc(variables, 6001, Map.of("scopeKey", 1001, "processInstanceKey", 1001, "name", "x", "value", "1", "truncated", false, "lastUpdate", date(1))));
    writes.add(doc(variables, 6002, Map.of("scopeKey", 1001, "processInstanceKey", 1001, "name", "note", "value", "\"hello\"", "truncated", false, "lastUpdate", date(1))));
    writes.add(doc(variables, 6003, Map.of("scopeKey", 5002, "processInstanceKey", 1001, "name", "big", "value", "\"yyyy", "fullValue", "\"yyyyyyyy\"", "truncated", true, "lastUpdate", date(1))));
    String incidents = ReadModelIndex.INCIDENT.indexName(prefix);
    writes.add(doc(incidents, 7001, incident(1, 5002, "ACTIVE", "no retries left")));
    writes.add(doc(incidents, 7002, incident(13, 5100, "ACTIVE", "boom")));
    writes.add(doc(incidents, 7003, incident(25, 5200, "RESOLVED", "fixed")));
    String jobs = ReadModelIndex.JOB.indexName(prefix);
    writes.add(doc(jobs, 8001, with(Map.of("processInstanceKey", 1001, "processDefinitionKey", 1, "bpmnProcessId", "order", "elementInstanceKey", 5002,
        "elementId", "task", "type", "work", "worker", "w1", "retries", 0, "state", "FAILED", "errorMessage", "no retries left"),
        Map.of("jobKind", "BPMN_ELEMENT", "listenerEventType", "UNSPECIFIED", "customHeaders", Map.of("priority", "high"),
            "hasFailedWithRetriesLeft", false, "creationTime", date(1), "lastUpdateTime", date(2),
            "rootProcessInstanceKey", 1001, "stateOrder", 4))));
    writes.add(doc(jobs, 8002, with(Map.of("processInstanceKey", 1004, "processDefinitionKey", 1, "bpmnProcessId", "order", "elementInstanceKey", 5300,
        "elementId", "task", "type", "work", "worker", "w2", "retries", 3, "state", "ACTIVATED"),
        Map.of("jobKind", "EXECUTION_LISTENER", "listenerEventType", "START", "customHeaders", Map.of(),
            "hasFailedWithRetriesLeft", true, "creationTime", date(4), "lastUpdateTime", date(5),
            "rootProcessInstanceKey", 1004, "stateOrder", 2))));
    var outcome = store.bulk(withIncidentsOnInstances(store, prefix, writes));
    if (!outcome.failures().isEmpty()) {
      throw new IllegalStateException("fixture not written: " + outcome.failures());
    }
    for (ReadModelIndex index : ReadModelIndex.values()) {
      store.refresh(index.indexName(prefix));
    }
  }

  public static String state(int i) {
    return switch (i % 3) {
      case 0 -> "COMPLETED";
      case 1 -> "ACTIVE";
      default -> "CANCELED";
    };
  }

  public static boolean hasIncident(int i) {
    return i == 1 || i == 13 || i == 25;
  }

  public static Map<String, Object> instance(int i) {
    Map<String, Object> doc = new HashMap<>();
    doc.put("processDefinitionKey", i < 10 ? 1 : i < 20 ? 2 : 3);
    doc.put("bpmnProcessId", i < 20 ? "order" : "payment");
    doc.put("version", i < 10 || i >= 20 ? 1 : 2);
    doc.put("state", state(i));
    doc.put("stateOrder", switch (state(i)) { case "ACTIVE" -> 0; case "COMPLETED" -> 1; default -> 2; });
    doc.put("processDefinitionName", i < 20 ? "Order" : "Payment");
    if (i >= 10 && i < 20) {
      doc.put("processDefinitionVersionTag", "v2");
    }
    doc.put("rootProcessInstanceKey", 1000 + i);
    doc.put("incident", hasIncident(i));
    doc.put("startDate", date(i));
    if (!state(i).equals("ACTIVE")) {
      doc.put("endDate", date(i + 1));
    }
    doc.put("tenantId", "<default>");
    doc.put("partitionId", 1);
    doc.put("variableEntries", variableEntries(i));
    switch (i) {
      case 1 -> {
        doc.put("elementInstanceEntries", List.of("id=start", "state=COMPLETED", "inc=false", "id=start|state=COMPLETED",
            "id=start|inc=false", "state=COMPLETED|inc=false", "id=start|state=COMPLETED|inc=false",
            "id=task", "state=ACTIVE", "inc=true", "id=task|state=ACTIVE", "id=task|inc=true", "state=ACTIVE|inc=true",
            "id=task|state=ACTIVE|inc=true"));
      }
      case 13 -> {
        doc.put("elementInstanceEntries", List.of("id=task", "state=ACTIVE", "inc=true", "id=task|state=ACTIVE",
            "id=task|inc=true", "state=ACTIVE|inc=true", "id=task|state=ACTIVE|inc=true"));
      }
      case 25 -> doc.put("elementInstanceEntries", List.of("id=task", "state=COMPLETED", "inc=false",
          "id=task|state=COMPLETED", "id=task|inc=false", "state=COMPLETED|inc=false", "id=task|state=COMPLETED|inc=false"));
      case 4 -> doc.put("retriesLeftJobKeys", List.of(8002L));
      default -> { }
    }
    return doc;
  }

  /** The entries the writer keeps for instance i's variables: sorted, distinct, literal here (an independent oracle). */
  public static List<String> variableEntries(int i) {
    java.util.TreeSet<String> entries = new java.util.TreeSet<>();
    entries.add(i % 4 == 0 ? "tier=\"gold\"" : "tier=\"silver\"");
    if (i == 1) {
      entries.addAll(List.of("x=1", "note=\"hello\"", "big=\"yyyy"));
    }
    if (i == 2) {
      entries.addAll(List.of("a\\=b=1", "tier=\"gold\""));
    }
    return List.copyOf(entries);
  }

  public static String date(int hours) {
    return START.plus(hours, ChronoUnit.HOURS).toString();
  }

  /** Instance 1000 + i's incident, with its instance's definition and the error's hash as the writer keeps it. */
  private static Map<String, Object> incident(int i, long element, String state, String message) {
    Map<String, Object> instance = instance(i);
    Map<String, Object> incident = new HashMap<>(Map.of("processInstanceKey", 1000 + i, "processDefinitionKey",
        instance.get("processDefinitionKey"), "bpmnProcessId", instance.get("bpmnProcessId"), "elementInstanceKey",
        element, "elementId", "task", "errorType", "JOB_NO_RETRIES", "errorMessage", message, "state", state,
        "creationTime", date(1)));
    incident.put("errorMessageHash", message.hashCode());
    return incident;
  }

  /**
   * The writes, with what the writer keeps on a process instance for each of its open incidents among them
   * ({@code IncidentHandler}): the incident's key in {@code incidentKeys}, the {@code incident} flag, and its message
   * and its message's hash code in {@code incidentErrorMessages} and {@code incidentErrorHashCodes} (each distinct and
   * sorted, the hash codes as text, as the writer writes them). The filters and the incident statistics read these
   * from the instance, so a fixture that writes an incident without them tests a read model the writer never writes.
   * An instance among the writes is changed there; one already stored is read and written again, one version above.
   */
  public static List<DocumentWrite> withIncidentsOnInstances(SearchStore store, String prefix,
      List<DocumentWrite> writes) {
    String incidents = ReadModelIndex.INCIDENT.indexName(prefix);
    String instances = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    Map<String, List<Map<String, Object>>> openByInstance = new java.util.LinkedHashMap<>();
    for (DocumentWrite write : writes) {
      if (write.index().equals(incidents) && "ACTIVE".equals(write.document().get("state"))) {
        openByInstance.computeIfAbsent(String.valueOf(write.document().get("processInstanceKey")),
            key -> new ArrayList<>()).add(write.document());
      }
    }
    Map<String, DocumentWrite> instanceWrites = new java.util.LinkedHashMap<>();
    for (DocumentWrite write : writes) {
      if (write.index().equals(instances) && openByInstance.containsKey(write.id())) {
        instanceWrites.put(write.id(), write);
      }
    }
    List<String> stored = openByInstance.keySet().stream().filter(id -> !instanceWrites.containsKey(id)).toList();
    if (!stored.isEmpty()) {
      store.getAll(instances, stored).forEach((id, document) -> instanceWrites.put(id, new DocumentWrite(instances, id,
          ((Number) document.get("position")).longValue() + 1, document)));
    }
    Map<String, DocumentWrite> changed = new HashMap<>();
    instanceWrites.forEach((id, write) -> {
      Map<String, Object> document = new HashMap<>(write.document());
      java.util.TreeSet<Long> keys = new java.util.TreeSet<>();
      java.util.TreeSet<String> messages = new java.util.TreeSet<>();
      java.util.TreeSet<String> hashCodes = new java.util.TreeSet<>();
      addAll(keys, document.get("incidentKeys"), value -> ((Number) value).longValue());
      addAll(messages, document.get(ElementEntries.INCIDENT_ERROR_MESSAGES), String::valueOf);
      addAll(hashCodes, document.get(ElementEntries.INCIDENT_ERROR_HASH_CODES), String::valueOf);
      for (Map<String, Object> incident : openByInstance.get(id)) {
        String message = (String) incident.get("errorMessage");
        keys.add(((Number) incident.get("key")).longValue());
        if (message != null) {
          messages.add(VariableEntries.cut(message));
        }
        hashCodes.add(String.valueOf(java.util.Objects.hashCode(message)));
      }
      document.put("incidentKeys", List.copyOf(keys));
      document.put("incident", true);
      document.put(ElementEntries.INCIDENT_ERROR_MESSAGES, List.copyOf(messages));
      document.put(ElementEntries.INCIDENT_ERROR_HASH_CODES, List.copyOf(hashCodes));
      changed.put(id, new DocumentWrite(instances, id, write.position(), document));
    });
    List<DocumentWrite> all = new ArrayList<>();
    for (DocumentWrite write : writes) {
      all.add(write.index().equals(instances) && changed.containsKey(write.id()) ? changed.remove(write.id()) : write);
    }
    all.addAll(changed.values());
    return all;
  }

  private static <T> void addAll(java.util.Set<T> set, Object list, java.util.function.Function<Object, T> each) {
    if (list instanceof List<?> values) {
      values.forEach(value -> set.add(each.apply(value)));
    }
  }

  private static Map<String, Object> with(Map<String, Object> fields, Map<String, Object> more) {
    Map<String, Object> all = new HashMap<>(fields);
    all.putAll(more);
    return all;
  }

  public static DocumentWrite doc(String index, long key, Map<String, Object> fields) {
    Map<String, Object> document = new HashMap<>(fields);
    document.put("key", key);
    document.putIfAbsent("partitionId", 1);
    // the writer writes the record's tenant on every document
    document.putIfAbsent("tenantId", "<default>");
    return new DocumentWrite(index, String.valueOf(key), key, document);
  }
}
