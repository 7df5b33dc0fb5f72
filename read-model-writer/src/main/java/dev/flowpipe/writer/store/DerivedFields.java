package dev.flowpipe.writer.store;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.writer.batch.PendingDocument;
import dev.flowpipe.writer.handler.BpmnNames;
import dev.flowpipe.writer.handler.DeployedDefinitions;
import dev.flowpipe.writer.handler.FieldEdit;
import dev.flowpipe.writer.handler.ProcessInstanceHandler;
import dev.flowpipe.writer.handler.StartedInstances;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fields a document takes from other documents, filled in just before a bulk writes it: the names the deployed BPMN
 * gives (an instance's {@code processDefinitionName} and {@code processDefinitionVersionTag}, an element instance's
 * {@code elementName}) and the root of the call hierarchy ({@code rootProcessInstanceKey} on instances, element
 * instances, jobs, incidents, sequence flows and decision instances of a process instance), and a decision
 * definition's DRD name and version ({@code decisionRequirementsName}, {@code decisionRequirementsVersion}, kept for
 * sorting), and the definition a message correlation's instance ran when the message correlated
 * ({@code processDefinitionKey}). Zeebe 8.6 records carry none of them.
 *
 * <p>Why here and not in the handlers: a handler sees one record, on the broker's thread, and must not wait for the
 * store; a definition deployed before the exporter's resume point is in no record it will see again. The bulk thread
 * can read the store. Each value is a function of documents that never change once written (a definition's BPMN, an
 * instance's parent), so filling it in at any flush gives the same document: exact under replay. A field is filled
 * only while the document lacks it (absent, not null), so later flushes of the same document cost a map lookup.
 *
 * <p>Sources, in order: the documents of the same bulk, a bounded cache of what was read before or learned from the
 * partition's own deployment records ({@link dev.flowpipe.writer.handler.DeploymentHandler}: every partition sees a
 * deployment before any instance of it, so a partition never depends on another's exporter for the names; a DRD's
 * record comes before its decisions'), one
 * multi-get per index for the rest (after a restart past the deployment's record). Where the source is not in the store yet (a definition another partition's exporter has not
 * written), the field stays absent and the next flush of that document tries again.
 *
 * <p>A correlation's definition is a function of the log, not of one document that never changes: a migration changes
 * the instance's definition after the correlation. So it is read from the instance's history of definitions, each
 * since its position ({@code ProcessInstanceHandler.DEFINITION_HISTORY}), at the correlation's own position: what the
 * writer learned since its resume point ({@link #runs}) holds every entry after that point, the stored instance
 * document every entry up to it (acknowledged, so durable), whatever later bulks the store holds already.
 */
public final class DerivedFields implements DeployedDefinitions, StartedInstances {

  static final int MAX_DEFINITIONS = 1_000;
  static final int MAX_ROOTS = 100_000;

  private final String definitions;
  private final String instances;
  private final String elements;
  private final String requirements;
  private final String decisions;
  /** The indices whose documents belong to one process instance and take its root (and nothing else). */
  private final Set<String> ofInstance;
  private final Map<Long, Definition> definitionCache = lru(MAX_DEFINITIONS);
  private final Map<Long, Long> rootCache = lru(MAX_ROOTS);
  /** Instances seen starting before their caller's root was known here: their caller, for the root. */
  private final Map<Long, Long> parentCache = lru(MAX_ROOTS);
  private final Map<Long, Requirements> requirementsCache = lru(MAX_DEFINITIONS);
  /** Per instance, the definitions learned from its start and migrations: {position, definition key} pairs. */
  private final Map<Long, List<long[]>> definitionsRun = lru(MAX_ROOTS);
  private final String correlations;

  /** What an instance takes from its definition. */
  record Definition(String name, String versionTag, BpmnNames names) {}

  /** What a decision takes from its DRD. */
  record Requirements(String name, int version) {}

  public DerivedFields(String indexPrefix) {
    this.definitions = ReadModelIndex.PROCESS_DEFINITION.indexName(indexPrefix);
    this.instances = ReadModelIndex.PROCESS_INSTANCE.indexName(indexPrefix);
    this.elements = ReadModelIndex.FLOW_NODE_INSTANCE.indexName(indexPrefix);
    this.requirements = ReadModelIndex.DECISION_REQUIREMENTS.indexName(indexPrefix);
    this.decisions = ReadModelIndex.DECISION_DEFINITION.indexName(indexPrefix);
    this.correlations = ReadModelIndex.MESSAGE_CORRELATION.indexName(indexPrefix);
    this.ofInstance = Set.of(ReadModelIndex.JOB.indexName(indexPrefix),
        ReadModelIndex.INCIDENT.indexName(indexPrefix),
        ReadModelIndex.SEQUENCE_FLOW.indexName(indexPrefix), ReadModelIndex.DECISION_INSTANCE.indexName(indexPrefix));
  }

  @Override
  public void deployed(long definitionKey, String name, String versionTag, BpmnNames names) {
    cacheDefinition(definitionKey, new Definition(name, versionTag, names));
  }

  /**
   * From the partition's own start records ({@link dev.flowpipe.writer.handler.CallHierarchyHandler}): an instance's
   * root is known from its start on, whatever bulk its own document is in; a caller whose root is not known yet (it
   * started before this writer's resume point) is read from the store, where it is for sure.
   */
  @Override
  public void started(long instanceKey, long parentInstanceKey) {
    if (parentInstanceKey <= 0) {
      cacheRoot(instanceKey, instanceKey);
      return;
    }
    Long root = cachedRoot(parentInstanceKey);
    if (root != null) {
      cacheRoot(instanceKey, root);
    } else {
      cacheParent(instanceKey, parentInstanceKey);
    }
  }

  /** From the partition's own start and migration records ({@link dev.flowpipe.writer.handler.CallHierarchyHandler}). */
  @Override
  public synchronized void runs(long instanceKey, long position, long definitionKey) {
    List<long[]> learned = definitionsRun.computeIfAbsent(instanceKey, key -> new ArrayList<>());
    if (learned.stream().noneMatch(entry -> entry[0] == position)) {
      learned.add(new long[] {position, definitionKey});
    }
  }

  @Override
  public void requirementsDeployed(long requirementsKey, String name, int version) {
    cacheRequirements(requirementsKey, new Requirements(name, version));
  }

  /**
   * Which of the documents that take derived fields a document is: an instance, an element instance (both also take
   * names), or another document of one instance (a job, incident, sequence flow or decision instance). Not variables:
   * a creation command's or a call's variables come before their instance's start in the log, so a variable flushed
   * before its instance's document is durable has no source for the root, and is rarely written again (the replay
   * tests of engine-broker's ReadModelFromRealRunsTest showed it).
   */
  private enum Kind { INSTANCE, ELEMENT, OF_INSTANCE }

  private record Target(Kind kind, Map<String, Object> state) {}

  /** Fills in what the documents lack and their sources give, reading missing sources from {@code store}. */
  public void fill(Collection<PendingDocument> documents, SearchStore store) {
    fillRequirements(documents, store);
    fillCorrelationDefinitions(documents, store);
    Map<Long, Definition> batchDefinitions = new HashMap<>();
    Map<Long, Map<String, Object>> batchInstances = new HashMap<>();
    List<Target> targets = new ArrayList<>();
    for (PendingDocument document : documents) {
      Map<String, Object> state = document.state();
      String index = document.index();
      if (ofInstance.contains(index)) {
        // keyed by the instance (sequence flows and decision instances have no "key"); a partial document (an
        // update of one the store does not hold) or a standalone decision evaluation names none: nothing to derive
        if (state != null && key(state, "processInstanceKey") != null) {
          targets.add(new Target(Kind.OF_INSTANCE, state));
        }
        continue;
      }
      if (state == null || key(state, "key") == null) {
        continue; // a partial document (an update of one the store does not hold): nothing to derive from
      }
      if (index.equals(definitions) && state.get("bpmnXml") != null) {
        batchDefinitions.put(key(state, "key"), definition(state));
      } else if (index.equals(instances)) {
        batchInstances.put(key(state, "key"), state);
        targets.add(new Target(Kind.INSTANCE, state));
      } else if (index.equals(elements)) {
        targets.add(new Target(Kind.ELEMENT, state));
      }
    }
    Set<Long> missingDefinitions = new LinkedHashSet<>();
    Set<Long> missingInstances = new LinkedHashSet<>();
    for (Target target : targets) {
      Long definitionKey = needsDefinition(target) ? key(target.state(), "processDefinitionKey") : null;
      if (definitionKey != null && !batchDefinitions.containsKey(definitionKey)
          && cachedDefinition(definitionKey) == null) {
        missingDefinitions.add(definitionKey);
      }
      Long ancestor = rootSource(target);
      // the instance, and the callers learned for it up to one whose root is known
      while (ancestor != null && !batchInstances.containsKey(ancestor) && cachedRoot(ancestor) == null
          && missingInstances.add(ancestor)) {
        ancestor = cachedParent(ancestor);
      }
    }
    if (!missingDefinitions.isEmpty()) {
      store.getAll(definitions, missingDefinitions.stream().map(String::valueOf).toList()).values()
          .forEach(stored -> {
            if (key(stored, "key") != null && stored.get("bpmnXml") != null) {
              batchDefinitions.put(key(stored, "key"), definition(stored));
            }
          });
    }
    if (!missingInstances.isEmpty()) {
      store.getAll(instances, missingInstances.stream().map(String::valueOf).toList()).values()
          .forEach(stored -> {
            if (key(stored, "key") != null) {
              batchInstances.putIfAbsent(key(stored, "key"), stored);
            }
          });
    }
    batchDefinitions.forEach(this::cacheDefinition);
    // instances first: an element instance or another document of an instance in this bulk takes that instance's root
    for (Target target : targets) {
      if (target.kind() == Kind.INSTANCE) {
        fillOne(target, batchDefinitions, batchInstances);
      }
    }
    for (Target target : targets) {
      if (target.kind() != Kind.INSTANCE) {
        fillOne(target, batchDefinitions, batchInstances);
      }
    }
  }

  private void fillOne(Target target, Map<Long, Definition> batchDefinitions,
      Map<Long, Map<String, Object>> batchInstances) {
    Map<String, Object> state = target.state();
    Long definitionKey = needsDefinition(target) ? key(state, "processDefinitionKey") : null;
    if (definitionKey != null) {
      Definition definition = batchDefinitions.get(definitionKey);
      definition = definition != null ? definition : cachedDefinition(definitionKey);
      if (definition != null && target.kind() == Kind.ELEMENT) {
        state.put("elementName", definition.names().elementName(String.valueOf(state.get("elementId"))));
      } else if (definition != null) {
        state.put("processDefinitionName", definition.name());
        state.put("processDefinitionVersionTag", definition.versionTag());
      }
    }
    if (!state.containsKey("rootProcessInstanceKey")) {
      Long root = target.kind() == Kind.INSTANCE
          ? instanceRoot(state, batchInstances)
          : rootOf(key(state, "processInstanceKey"), batchInstances);
      if (root != null) {
        state.put("rootProcessInstanceKey", root);
      }
    }
  }

  /** An instance lacking its definition's name, or an element instance lacking its element's; never another. */
  private static boolean needsDefinition(Target target) {
    return switch (target.kind()) {
      case INSTANCE -> !target.state().containsKey("processDefinitionName");
      case ELEMENT -> !target.state().containsKey("elementName");
      case OF_INSTANCE -> false;
    };
  }

  /**
   * The instance whose root this document takes: an instance's parent (an instance without one is its own root), any
   * other document's instance; null when the document has its root or names no such instance.
   */
  private static Long rootSource(Target target) {
    if (target.state().containsKey("rootProcessInstanceKey")) {
      return null;
    }
    return key(target.state(), target.kind() == Kind.INSTANCE ? "parentProcessInstanceKey" : "processInstanceKey");
  }

  /**
   * A decision definition lacking its DRD's name and version takes them from the DRD: learned from the deployment's
   * record, in this bulk, or read from the store (a restart past the DRD's record). Both never change.
   */
  private void fillRequirements(Collection<PendingDocument> documents, SearchStore store) {
    Map<Long, Requirements> batch = new HashMap<>();
    List<Map<String, Object>> lacking = new ArrayList<>();
    for (PendingDocument document : documents) {
      Map<String, Object> state = document.state();
      if (state == null || key(state, "key") == null) {
        continue;
      }
      if (document.index().equals(requirements) && state.get("version") instanceof Number version) {
        batch.put(key(state, "key"), new Requirements((String) state.get("name"), version.intValue()));
      } else if (document.index().equals(decisions) && !state.containsKey("decisionRequirementsName")
          && key(state, "decisionRequirementsKey") != null) {
        lacking.add(state);
      }
    }
    if (lacking.isEmpty()) {
      return;
    }
    Set<Long> missing = new LinkedHashSet<>();
    for (Map<String, Object> decision : lacking) {
      Long drd = key(decision, "decisionRequirementsKey");
      if (!batch.containsKey(drd) && cachedRequirements(drd) == null) {
        missing.add(drd);
      }
    }
    if (!missing.isEmpty()) {
      store.getAll(requirements, missing.stream().map(String::valueOf).toList()).values().forEach(stored -> {
        if (key(stored, "key") != null && stored.get("version") instanceof Number version) {
          batch.put(key(stored, "key"), new Requirements((String) stored.get("name"), version.intValue()));
        }
      });
    }
    batch.forEach(this::cacheRequirements);
    for (Map<String, Object> decision : lacking) {
      Requirements drd = cachedRequirements(key(decision, "decisionRequirementsKey"));
      if (drd != null) {
        decision.put("decisionRequirementsName", drd.name());
        decision.put("decisionRequirementsVersion", drd.version());
      }
    }
  }

  /**
   * A correlation lacking its definition takes the one its instance ran at the correlation's position: learned here
   * since the resume point, or from the instance's history in this bulk or in the store (an instance written before
   * the history existed: its definition). Absent while neither holds it.
   */
  private void fillCorrelationDefinitions(Collection<PendingDocument> documents, SearchStore store) {
    List<PendingDocument> lacking = new ArrayList<>();
    Map<Long, Map<String, Object>> batchInstances = new HashMap<>();
    for (PendingDocument document : documents) {
      Map<String, Object> state = document.state();
      if (state == null) {
        continue;
      }
      if (document.index().equals(correlations) && !state.containsKey("processDefinitionKey")
          && key(state, "processInstanceKey") != null) {
        lacking.add(document);
      } else if (document.index().equals(instances) && key(state, "key") != null) {
        batchInstances.put(key(state, "key"), state);
      }
    }
    if (lacking.isEmpty()) {
      return;
    }
    Set<Long> missing = new LinkedHashSet<>();
    for (PendingDocument correlation : lacking) {
      Long instance = key(correlation.state(), "processInstanceKey");
      if (learnedDefinition(instance, correlation.position()) == null && !batchInstances.containsKey(instance)) {
        missing.add(instance);
      }
    }
    if (!missing.isEmpty()) {
      store.getAll(instances, missing.stream().map(String::valueOf).toList()).values().forEach(stored -> {
        if (key(stored, "key") != null) {
          batchInstances.putIfAbsent(key(stored, "key"), stored);
        }
      });
    }
    for (PendingDocument correlation : lacking) {
      Long instance = key(correlation.state(), "processInstanceKey");
      Long definition = learnedDefinition(instance, correlation.position());
      Map<String, Object> document = batchInstances.get(instance);
      if (definition == null && document != null) {
        definition = document.containsKey(ProcessInstanceHandler.DEFINITION_HISTORY)
            ? FieldEdit.KeySince.at(document.get(ProcessInstanceHandler.DEFINITION_HISTORY), correlation.position())
            : key(document, "processDefinitionKey");
      }
      if (definition != null) {
        correlation.state().put("processDefinitionKey", definition);
      }
    }
  }

  /**
   * The definition learned for an instance at a position: its last entry at or before it, when the writer learned one
   * (every entry after the resume point is learned, so the last one at or before a later position is among them).
   */
  private synchronized Long learnedDefinition(long instanceKey, long position) {
    Long found = null;
    long foundPosition = Long.MIN_VALUE;
    for (long[] entry : definitionsRun.getOrDefault(instanceKey, List.of())) {
      if (entry[0] <= position && entry[0] >= foundPosition) {
        foundPosition = entry[0];
        found = entry[1];
      }
    }
    return found;
  }

  private Long instanceRoot(Map<String, Object> instance, Map<Long, Map<String, Object>> batchInstances) {
    long key = key(instance, "key");
    Long parent = key(instance, "parentProcessInstanceKey");
    Long root = parent == null ? Long.valueOf(key) : rootOf(parent, batchInstances);
    if (root != null) {
      cacheRoot(key, root);
    }
    return root;
  }

  /** The root of an instance: cached, or from its document in this bulk or read from the store. */
  private Long rootOf(Long instanceKey, Map<Long, Map<String, Object>> batchInstances) {
    if (instanceKey == null) {
      return null;
    }
    Long cached = cachedRoot(instanceKey);
    if (cached != null) {
      return cached;
    }
    Map<String, Object> instance = batchInstances.get(instanceKey);
    Long root = null;
    if (instance != null) {
      root = key(instance, "rootProcessInstanceKey");
      if (root == null && key(instance, "parentProcessInstanceKey") == null && instance.containsKey("startDate")) {
        root = instanceKey; // an instance written before this field existed, without a parent: its own root
      }
    }
    if (root == null) {
      // not in this bulk nor in the store yet (or without its root there): through the caller learned at its start
      Long parent = cachedParent(instanceKey);
      root = parent == null ? null : rootOf(parent, batchInstances);
    }
    if (root != null) {
      cacheRoot(instanceKey, root);
    }
    return root;
  }

  private static Definition definition(Map<String, Object> stored) {
    String bpmnProcessId = String.valueOf(stored.get("bpmnProcessId"));
    return new Definition((String) stored.get("name"), (String) stored.get("versionTag"),
        BpmnNames.read(String.valueOf(stored.get("bpmnXml")), bpmnProcessId));
  }

  private static Long key(Map<String, Object> state, String field) {
    return state.get(field) instanceof Number n && n.longValue() > 0 ? n.longValue() : null;
  }

  // the caches are read and written by the bulk threads (several with bulks in flight)
  private synchronized Definition cachedDefinition(long key) {
    return definitionCache.get(key);
  }

  private synchronized void cacheDefinition(long key, Definition definition) {
    definitionCache.put(key, definition);
  }

  private synchronized Requirements cachedRequirements(long key) {
    return requirementsCache.get(key);
  }

  private synchronized void cacheRequirements(long key, Requirements requirements) {
    requirementsCache.put(key, requirements);
  }

  private synchronized Long cachedParent(long key) {
    return parentCache.get(key);
  }

  private synchronized void cacheParent(long key, long parent) {
    parentCache.put(key, parent);
  }

  private synchronized Long cachedRoot(long key) {
    return rootCache.get(key);
  }

  private synchronized void cacheRoot(long key, long root) {
    rootCache.put(key, root);
  }

  private static <K, V> Map<K, V> lru(int max) {
    return new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > max;
      }
    };
  }
}
