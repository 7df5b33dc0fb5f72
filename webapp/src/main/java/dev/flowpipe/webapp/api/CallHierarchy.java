package dev.flowpipe.webapp.api;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.query.Entity;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An instance's place among the instances its call activities started, from the instance documents' parents (the
 * read model holds no tree path): Camunda's {@code GET /v2/process-instances/{key}/call-hierarchy} and the instances
 * whose incidents {@code POST /v2/process-instances/{key}/incidents/search} reads (the instance and every instance it
 * called, at any depth, as Camunda's tree-path match).
 */
public final class CallHierarchy {

  /** More levels than any real hierarchy: a cycle in broken data must not loop for ever. */
  private static final int MAX_DEPTH = 1_000;

  private final ReadModel readModel;
  private final Duration storeTimeout;

  public CallHierarchy(ReadModel readModel, Duration storeTimeout) {
    this.readModel = readModel;
    this.storeTimeout = storeTimeout;
  }

  /**
   * From the root down to the instance itself, each {@code processInstanceKey}, {@code processDefinitionKey} and
   * {@code processDefinitionName} (its id where the definition has no name); empty for a root instance, as Camunda
   * answers; 404 for an instance the read model lacks.
   */
  public List<Map<String, Object>> of(String processInstanceKey) {
    Map<String, Object> instance = instance(processInstanceKey);
    Deque<Map<String, Object>> path = new ArrayDeque<>();
    path.addFirst(instance);
    Object parent = instance.get("parentProcessInstanceKey");
    while (isKey(parent) && path.size() < MAX_DEPTH) {
      var caller = readModel.store().get(instances(), String.valueOf(parent));
      if (caller.isEmpty()) {
        break; // a caller not in the read model (yet): the hierarchy as far as it holds it
      }
      path.addFirst(caller.get());
      parent = caller.get().get("parentProcessInstanceKey");
    }
    if (path.size() == 1) {
      return List.of();
    }
    List<Map<String, Object>> entries = new ArrayList<>();
    for (Map<String, Object> each : path) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("processInstanceKey", String.valueOf(each.get("key")));
      entry.put("processDefinitionKey", String.valueOf(each.get("processDefinitionKey")));
      Object name = each.get("processDefinitionName");
      entry.put("processDefinitionName", name != null ? name : each.get("bpmnProcessId"));
      entries.add(entry);
    }
    return entries;
  }

  /**
   * The criterion for the documents of an instance and of every instance it called: of a root instance, those of its
   * root; of a called one, those of the instances below it among its root's (read page by page).
   */
  public Criterion instanceAndCalled(String processInstanceKey) {
    Map<String, Object> instance = instance(processInstanceKey);
    long key = Long.parseLong(processInstanceKey);
    if (!isKey(instance.get("parentProcessInstanceKey"))) {
      return new Criterion.AnyOf(List.of(List.of(new Criterion.Equals("rootProcessInstanceKey", key)),
          List.of(new Criterion.Equals("processInstanceKey", key))));
    }
    Object root = instance.get("rootProcessInstanceKey");
    Map<Long, List<Long>> children = new HashMap<>();
    if (isKey(root)) {
      for (SearchHits.Hit hit : AllHits.read(readModel.store(), instances(),
          List.of(new Criterion.Equals("rootProcessInstanceKey", ((Number) root).longValue())),
          List.of(SortField.ascending("key")), Entity.PROCESS_INSTANCES.leftOutOfLists(), storeTimeout,
          Integer.MAX_VALUE)) {
        if (isKey(hit.source().get("parentProcessInstanceKey"))) {
          children.computeIfAbsent(((Number) hit.source().get("parentProcessInstanceKey")).longValue(),
              parent -> new ArrayList<>()).add(((Number) hit.source().get("key")).longValue());
        }
      }
    }
    Set<Long> below = new LinkedHashSet<>();
    Deque<Long> open = new ArrayDeque<>(List.of(key));
    while (!open.isEmpty()) {
      long next = open.removeFirst();
      if (below.add(next)) {
        open.addAll(children.getOrDefault(next, Collections.emptyList()));
      }
    }
    return new Criterion.OneOf("processInstanceKey", List.copyOf(below));
  }

  private Map<String, Object> instance(String processInstanceKey) {
    boolean key = processInstanceKey != null && processInstanceKey.matches("\\d{1,19}");
    try {
      key = key && Long.parseLong(processInstanceKey) > 0;
    } catch (NumberFormatException e) {
      key = false;
    }
    if (!key) {
      throw new BadRequestException("processInstanceKey",
          "expected a process instance key (positive digits), was '" + processInstanceKey + "'");
    }
    return readModel.store().get(instances(), processInstanceKey).orElseThrow(
        () -> new NotFoundException("no process instance " + processInstanceKey + " in process-instances"));
  }

  private String instances() {
    return readModel.index(ReadModelIndex.PROCESS_INSTANCE);
  }

  private static boolean isKey(Object value) {
    return value instanceof Number number && number.longValue() > 0;
  }
}
