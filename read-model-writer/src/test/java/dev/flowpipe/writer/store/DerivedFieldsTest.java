package dev.flowpipe.writer.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.writer.batch.DocumentBuffer;
import dev.flowpipe.writer.batch.PendingDocument;
import dev.flowpipe.writer.batch.RecentDocuments;
import dev.flowpipe.writer.handler.DocumentChange;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class DerivedFieldsTest {

  private static final String PREFIX = "t";
  private static final String DEFINITIONS = ReadModelIndex.PROCESS_DEFINITION.indexName(PREFIX);
  private static final String INSTANCES = ReadModelIndex.PROCESS_INSTANCE.indexName(PREFIX);
  private static final String ELEMENTS = ReadModelIndex.FLOW_NODE_INSTANCE.indexName(PREFIX);
  private static final String JOBS = ReadModelIndex.JOB.indexName(PREFIX);
  private static final String INCIDENTS = ReadModelIndex.INCIDENT.indexName(PREFIX);
  private static final String VARIABLES = ReadModelIndex.VARIABLE.indexName(PREFIX);
  private static final String FLOWS = ReadModelIndex.SEQUENCE_FLOW.indexName(PREFIX);
  private static final String DECISIONS = ReadModelIndex.DECISION_INSTANCE.indexName(PREFIX);
  private static final String DECISION_DEFINITIONS = ReadModelIndex.DECISION_DEFINITION.indexName(PREFIX);
  private static final String DRDS = ReadModelIndex.DECISION_REQUIREMENTS.indexName(PREFIX);
  private static final String CORRELATIONS = ReadModelIndex.MESSAGE_CORRELATION.indexName(PREFIX);
  private static final String BPMN = """
      <bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
        <bpmn:process id="order" name="Order" isExecutable="true">
          <bpmn:startEvent id="start"/>
          <bpmn:serviceTask id="ship" name="Ship it"/>
        </bpmn:process>
      </bpmn:definitions>""";

  /** A store that holds documents by index and id, and counts the multi-gets it answers. */
  private final Map<String, Map<String, Map<String, Object>>> stored = new HashMap<>();
  private final List<String> reads = new ArrayList<>();
  private final SearchStore store = (SearchStore) Proxy.newProxyInstance(getClass().getClassLoader(),
      new Class<?>[] {SearchStore.class}, (proxy, method, args) -> {
        if (!method.getName().equals("getAll") || args.length != 2) {
          throw new UnsupportedOperationException(method.getName());
        }
        String index = (String) args[0];
        reads.add(index);
        Map<String, Map<String, Object>> found = new HashMap<>();
        for (Object id : (List<?>) args[1]) {
          Map<String, Object> document = stored.getOrDefault(index, Map.of()).get((String) id);
          if (document != null) {
            found.put((String) id, document);
          }
        }
        return found;
      });
  private final DerivedFields derived = new DerivedFields(PREFIX);

  private long position = 1;

  private Map<String, Object> definition(long key) {
    return Map.of("key", key, "bpmnProcessId", "order", "name", "Order", "versionTag", "v3", "bpmnXml", BPMN);
  }

  private Map<String, Object> instance(long key, Long parent) {
    Map<String, Object> fields = new HashMap<>(Map.of("key", key, "processDefinitionKey", 1L,
        "bpmnProcessId", "order", "state", "ACTIVE", "incident", false, "startDate", "2026-01-01T00:00:00Z"));
    fields.put("parentProcessInstanceKey", parent);
    return fields;
  }

  private Map<String, Object> element(long key, long instance, String elementId) {
    return Map.of("key", key, "processInstanceKey", instance, "processDefinitionKey", 1L, "bpmnProcessId", "order",
        "elementId", elementId, "type", "SERVICE_TASK", "state", "ACTIVE");
  }

  /** Fills the documents as one bulk would and hands back their states by index and id. */
  private Map<String, Map<String, Object>> flush(Object... indexAndFields) {
    DocumentBuffer buffer = new DocumentBuffer(new RecentDocuments(100));
    for (int i = 0; i < indexAndFields.length; i += 2) {
      @SuppressWarnings("unchecked")
      Map<String, Object> fields = (Map<String, Object>) indexAndFields[i + 1];
      DocumentChange.Builder change =
          DocumentChange.create((String) indexAndFields[i], String.valueOf(fields.get("key")), position);
      // a text "key" is only the id (sequence flows and decision instances have no key field)
      fields.forEach((name, value) -> {
        if (!(name.equals("key") && value instanceof String)) {
          change.put(name, value);
        }
      });
      buffer.add(List.of(change.build()), position, 0, 0);
      position++;
    }
    derived.fill(buffer.documents(), store);
    Map<String, Map<String, Object>> states = new HashMap<>();
    for (PendingDocument document : buffer.documents()) {
      states.put(document.index() + "/" + document.id(), document.state());
    }
    return states;
  }

  @Nested
  class NamesFromTheBpmn {

    @Test
    void aDefinitionInTheSameBulkNamesItsInstancesAndElements() {
      var states = flush(DEFINITIONS, definition(1), INSTANCES, instance(10, null), ELEMENTS, element(11, 10, "ship"),
          ELEMENTS, element(12, 10, "start"));

      assertThat(states.get(INSTANCES + "/10")).containsEntry("processDefinitionName", "Order")
          .containsEntry("processDefinitionVersionTag", "v3").containsEntry("rootProcessInstanceKey", 10L);
      assertThat(states.get(ELEMENTS + "/11")).containsEntry("elementName", "Ship it")
          .containsEntry("rootProcessInstanceKey", 10L);
      // an element the BPMN gives no name is named by its id
      assertThat(states.get(ELEMENTS + "/12")).containsEntry("elementName", "start");
      assertThat(reads).isEmpty();
    }

    @Test
    void aDefinitionOnlyInTheStoreIsReadOnceAndThenCached() {
      stored.put(DEFINITIONS, Map.of("1", definition(1)));

      var first = flush(ELEMENTS, element(11, 10, "ship"));
      var second = flush(ELEMENTS, element(12, 10, "ship"));

      assertThat(first.get(ELEMENTS + "/11")).containsEntry("elementName", "Ship it");
      assertThat(second.get(ELEMENTS + "/12")).containsEntry("elementName", "Ship it");
      assertThat(reads.stream().filter(DEFINITIONS::equals)).hasSize(1);
    }

    @Test
    void aDefinitionLearnedFromThePartitionsOwnDeploymentRecordNamesWithoutReadingTheStore() {
      derived.deployed(1, "Order", null, dev.flowpipe.writer.handler.BpmnNames.read(BPMN, "order"));

      var states = flush(INSTANCES, instance(10, null), ELEMENTS, element(11, 10, "ship"));

      assertThat(states.get(INSTANCES + "/10")).containsEntry("processDefinitionName", "Order")
          .containsEntry("processDefinitionVersionTag", null);
      assertThat(states.get(ELEMENTS + "/11")).containsEntry("elementName", "Ship it");
      assertThat(reads).isEmpty();
    }

    @Test
    void aDefinitionNotYetInTheStoreLeavesTheNameAbsentUntilALaterFlush() {
      var before = flush(INSTANCES, instance(10, null));
      stored.put(DEFINITIONS, Map.of("1", definition(1)));
      var after = flush(INSTANCES, instance(10, null));

      assertThat(before.get(INSTANCES + "/10")).doesNotContainKey("processDefinitionName");
      assertThat(after.get(INSTANCES + "/10")).containsEntry("processDefinitionName", "Order");
    }
  }

  @Nested
  class RootInstances {

    @Test
    void aChildTakesTheRootOfItsParentFromTheStoreAndItsJobsTakeItToo() {
      Map<String, Object> parent = new HashMap<>(instance(10, 5L));
      parent.put("rootProcessInstanceKey", 5L);
      stored.put(INSTANCES, Map.of("10", parent));
      stored.put(DEFINITIONS, Map.of("1", definition(1)));

      var states = flush(INSTANCES, instance(20, 10L), JOBS, Map.of("key", 21L, "processInstanceKey", 20L,
          "processDefinitionKey", 1L, "elementId", "ship", "type", "work", "retries", 3, "state", "CREATED"));

      assertThat(states.get(INSTANCES + "/20")).containsEntry("rootProcessInstanceKey", 5L);
      assertThat(states.get(JOBS + "/21")).containsEntry("rootProcessInstanceKey", 5L)
          .doesNotContainKey("elementName");
    }

    @Test
    void incidentsSequenceFlowsAndDecisionInstancesTakeTheRootOfTheirInstanceAndVariablesDoNot() {
      Map<String, Object> child = new HashMap<>(instance(20, 10L));
      child.put("rootProcessInstanceKey", 5L);
      stored.put(INSTANCES, Map.of("20", child));

      var states = flush(INCIDENTS, Map.of("key", 31L, "processInstanceKey", 20L, "state", "ACTIVE"),
          VARIABLES, Map.of("key", 32L, "processInstanceKey", 20L, "scopeKey", 20L, "name", "x", "value", "1"),
          FLOWS, Map.of("key", "20_f1", "sequenceFlowId", "20_f1", "processInstanceKey", 20L, "elementId", "f1"),
          DECISIONS, Map.of("key", "40-1", "decisionInstanceId", "40-1", "processInstanceKey", 20L, "state",
              "EVALUATED"));

      assertThat(states.get(INCIDENTS + "/31")).containsEntry("rootProcessInstanceKey", 5L);
      // a variable may come before its instance's start: no exact source (see DerivedFields.Kind)
      assertThat(states.get(VARIABLES + "/32")).doesNotContainKey("rootProcessInstanceKey");
      assertThat(states.get(FLOWS + "/20_f1")).containsEntry("rootProcessInstanceKey", 5L);
      assertThat(states.get(DECISIONS + "/40-1")).containsEntry("rootProcessInstanceKey", 5L);
      // the instance was read once for all three
      assertThat(reads).containsExactly(INSTANCES);
    }

    @Test
    void anIncidentOfAStartedInstanceWhoseDocumentIsNowhereYetTakesTheRootLearnedAtItsStart() {
      derived.started(10, -1);
      derived.started(20, 10);

      var states = flush(INCIDENTS, Map.of("key", 31L, "processInstanceKey", 20L, "state", "ACTIVE"));

      assertThat(states.get(INCIDENTS + "/31")).containsEntry("rootProcessInstanceKey", 10L);
      assertThat(reads).isEmpty();
    }

    @Test
    void aCallerThatStartedBeforeTheResumePointIsReadFromTheStoreForItsCalledInstancesDocuments() {
      Map<String, Object> caller = new HashMap<>(instance(10, 5L));
      caller.put("rootProcessInstanceKey", 5L);
      stored.put(INSTANCES, Map.of("10", caller));
      derived.started(20, 10);

      var states = flush(FLOWS, Map.of("key", "20_f1", "sequenceFlowId", "20_f1", "processInstanceKey", 20L,
          "elementId", "f1"));

      assertThat(states.get(FLOWS + "/20_f1")).containsEntry("rootProcessInstanceKey", 5L);
    }

    @Test
    void anIncidentOfAnInstanceKnownNowhereGetsNoRoot() {
      var states = flush(INCIDENTS, Map.of("key", 31L, "processInstanceKey", 30L, "state", "ACTIVE"));

      assertThat(states.get(INCIDENTS + "/31")).doesNotContainKey("rootProcessInstanceKey");
    }

    @Test
    void aStandaloneDecisionEvaluationHasNoRootAndReadsNothing() {
      var states = flush(DECISIONS, Map.of("key", "41-1", "decisionInstanceId", "41-1", "processInstanceKey", -1L,
          "state", "EVALUATED"));

      assertThat(states.get(DECISIONS + "/41-1")).doesNotContainKey("rootProcessInstanceKey");
      assertThat(reads).isEmpty();
    }

    @Test
    void aFlowOfAnInstanceInTheSameBulkTakesItsRootWithoutReadingTheStore() {
      var states = flush(INSTANCES, instance(10, null), FLOWS, Map.of("key", "10_f1", "sequenceFlowId", "10_f1",
          "processInstanceKey", 10L, "elementId", "f1"));

      assertThat(states.get(FLOWS + "/10_f1")).containsEntry("rootProcessInstanceKey", 10L);
      assertThat(reads).doesNotContain(INSTANCES);
    }

    @Test
    void anUpdateOfAnIncidentTheStoreDoesNotHoldGetsNothingDerived() {
      DocumentBuffer buffer = new DocumentBuffer(new RecentDocuments(100));
      buffer.add(List.of(DocumentChange.update(INCIDENTS, 31, 5).put("state", "RESOLVED").build()), 5, 0, 0);
      buffer.withoutBase().forEach(document -> buffer.resolve(document, null));

      derived.fill(buffer.documents(), store);

      assertThat(buffer.documents().iterator().next().state()).containsOnlyKeys("state");
      assertThat(reads).isEmpty();
    }

    @Test
    void anUpdateOfADocumentTheStoreDoesNotHoldGetsNothingDerived() {
      DocumentBuffer buffer = new DocumentBuffer(new RecentDocuments(100));
      buffer.add(List.of(DocumentChange.update(ELEMENTS, 11, 5).put("state", "COMPLETED").build()), 5, 0, 0);
      buffer.withoutBase().forEach(document -> buffer.resolve(document, null));

      derived.fill(buffer.documents(), store);

      assertThat(buffer.documents().iterator().next().state()).containsOnlyKeys("state");
    }
  }

  @Nested
  class TheDrdOfADecision {

    private Map<String, Object> decision(long key) {
      return Map.of("key", key, "decisionId", "dish", "name", "Dish", "version", 1, "decisionRequirementsId",
          "dish-drd", "decisionRequirementsKey", 500L);
    }

    private Map<String, Object> drd() {
      return Map.of("key", 500L, "decisionRequirementsId", "dish-drd", "name", "Dish for the season", "version", 3);
    }

    @Test
    void aDrdLearnedFromThePartitionsOwnRecordGivesItsNameAndVersionWithoutReadingTheStore() {
      derived.requirementsDeployed(500, "Dish for the season", 3);

      var states = flush(DECISION_DEFINITIONS, decision(501));

      assertThat(states.get(DECISION_DEFINITIONS + "/501")).containsEntry("decisionRequirementsName",
          "Dish for the season").containsEntry("decisionRequirementsVersion", 3);
      assertThat(reads).isEmpty();
    }

    @Test
    void aDrdInTheSameBulkOrOnlyInTheStoreGivesThemToo() {
      var sameBulk = flush(DRDS, drd(), DECISION_DEFINITIONS, decision(501));
      DerivedFields afterARestart = new DerivedFields(PREFIX);
      stored.put(DRDS, Map.of("500", drd()));
      DocumentBuffer buffer = new DocumentBuffer(new RecentDocuments(100));
      DocumentChange.Builder change = DocumentChange.create(DECISION_DEFINITIONS, "502", position);
      decision(502).forEach(change::put);
      buffer.add(List.of(change.build()), position, 0, 0);

      afterARestart.fill(buffer.documents(), store);

      assertThat(sameBulk.get(DECISION_DEFINITIONS + "/501")).containsEntry("decisionRequirementsName",
          "Dish for the season").containsEntry("decisionRequirementsVersion", 3);
      assertThat(buffer.documents().iterator().next().state()).containsEntry("decisionRequirementsName",
          "Dish for the season").containsEntry("decisionRequirementsVersion", 3);
      assertThat(reads).containsExactly(DRDS);
    }

    @Test
    void aDrdNotYetInTheStoreLeavesThemAbsentUntilALaterFlush() {
      var before = flush(DECISION_DEFINITIONS, decision(501));
      stored.put(DRDS, Map.of("500", drd()));
      var after = flush(DECISION_DEFINITIONS, decision(501));

      assertThat(before.get(DECISION_DEFINITIONS + "/501")).doesNotContainKey("decisionRequirementsName");
      assertThat(after.get(DECISION_DEFINITIONS + "/501")).containsEntry("decisionRequirementsVersion", 3);
    }

    @Test
    void aDeletionOfADecisionTheStoreDoesNotHoldGetsNothing() {
      DocumentBuffer buffer = new DocumentBuffer(new RecentDocuments(100));
      buffer.add(List.of(DocumentChange.update(DECISION_DEFINITIONS, 501, 5).put("deleted", true).build()), 5, 0,
          0);
      buffer.withoutBase().forEach(document -> buffer.resolve(document, null));

      derived.fill(buffer.documents(), store);

      assertThat(buffer.documents().iterator().next().state()).containsOnlyKeys("deleted");
      assertThat(reads).isEmpty();
    }
  }

  /**
   * Instance 10 ran definition 1 from its start (position 5) and definition 2 from a migration (position 50); a
   * correlation takes the one at its own position.
   */
  @Nested
  class TheDefinitionOfACorrelation {

    private Map<String, Object> correlation(String id) {
      return Map.of("key", id, "subscriptionKey", 3001L, "messageKey", 4001L, "processInstanceKey", 10L);
    }

    private Object definitionOf(Map<String, Map<String, Object>> states, String id) {
      return states.get(CORRELATIONS + "/" + id).get("processDefinitionKey");
    }

    @Test
    void learnedFromTheStartAndTheMigrationItIsTheOneAtTheCorrelationWithoutReadingTheStore() {
      derived.runs(10, 5, 1);
      derived.runs(10, 50, 2);
      position = 20;
      var before = flush(CORRELATIONS, correlation("3001_4001"));
      position = 60;
      var after = flush(CORRELATIONS, correlation("3001_4002"));

      assertThat(definitionOf(before, "3001_4001")).isEqualTo(1L);
      assertThat(definitionOf(after, "3001_4002")).isEqualTo(2L);
      assertThat(reads).isEmpty();
    }

    @Test
    void afterARestartPastTheStartItIsReadFromTheStoredHistoryEvenWhenTheStoreHoldsTheLaterMigration() {
      Map<String, Object> migrated = new HashMap<>(instance(10, null));
      migrated.put("processDefinitionKey", 2L);
      migrated.put("processDefinitionHistory", List.of("5:1", "50:2"));
      stored.put(INSTANCES, Map.of("10", migrated));
      position = 20;

      var states = flush(CORRELATIONS, correlation("3001_4001"));

      assertThat(definitionOf(states, "3001_4001")).isEqualTo(1L);
      assertThat(reads).containsExactly(INSTANCES);
    }

    @Test
    void aMigrationLearnedSinceTheResumePointCountsFromItsPositionOnly() {
      // acknowledged up to 30: the start is in the store, the migration at 50 learned from the log
      Map<String, Object> started = new HashMap<>(instance(10, null));
      started.put("processDefinitionHistory", List.of("5:1"));
      stored.put(INSTANCES, Map.of("10", started));
      derived.runs(10, 50, 2);
      position = 40;
      var before = flush(CORRELATIONS, correlation("3001_4001"));
      position = 60;
      var after = flush(CORRELATIONS, correlation("3001_4002"));

      assertThat(definitionOf(before, "3001_4001")).isEqualTo(1L);
      assertThat(definitionOf(after, "3001_4002")).isEqualTo(2L);
      assertThat(reads).containsExactly(INSTANCES);
    }

    @Test
    void anInstanceWrittenBeforeTheHistoryExistedGivesItsDefinition() {
      stored.put(INSTANCES, Map.of("10", instance(10, null)));

      var states = flush(CORRELATIONS, correlation("3001_4001"));

      assertThat(definitionOf(states, "3001_4001")).isEqualTo(1L);
    }

    @Test
    void anInstanceNeitherLearnedNorStoredLeavesItAbsent() {
      var states = flush(CORRELATIONS, correlation("3001_4001"));

      assertThat(states.get(CORRELATIONS + "/3001_4001")).doesNotContainKey("processDefinitionKey");
      assertThat(reads).containsExactly(INSTANCES);
    }
  }
}
