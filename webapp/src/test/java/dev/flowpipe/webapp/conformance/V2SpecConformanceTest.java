package dev.flowpipe.webapp.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.v2spec.V2SpecChecks;
import dev.flowpipe.testsupport.v2spec.V2SpecRun;
import dev.flowpipe.testsupport.v2spec.V2SpecTable;
import dev.flowpipe.webapp.ReadModelFixture;
import dev.flowpipe.webapp.TestWebapp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Camunda's REST API v2 as our tables in test-support's {@code v2-spec/} transcribe it, checked against the web app
 * on a real OpenSearch: every check is generated from the tables (every field's presence and type, every filter with
 * every operator its kind takes, every enum value, every sort in both orders, the page modes, the limit and the cursor
 * pattern), none is written by hand. The data: {@link ReadModelFixture} plus decisions, message subscriptions, sequence
 * flows, incidents with their error hashes and a called instance, written as the writer's handlers write them.
 *
 * <p>A check listed in {@code known-differences.yaml} must fail (with the reason there, which the README repeats): when
 * the product is fixed, the check passes and this test says to take it off the list. The counts are printed at the end.
 * The same checks run on a node's real runs in client-compatibility's {@code V2SpecConformanceOnNodeTest}.
 */
@ExtendWith(SharedOpenSearch.class)
class V2SpecConformanceTest {

  private static TestWebapp app;
  private static V2SpecRun run;

  @BeforeAll
  static void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "1s");
    var outcome = store.bulk(ReadModelFixture.withIncidentsOnInstances(store, prefix, moreDocuments(prefix)), true);
    if (!outcome.failures().isEmpty()) {
      throw new IllegalStateException("data not written: " + outcome.failures());
    }
    app = TestWebapp.start(Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix));
    V2SpecChecks.Api api = new V2SpecChecks.Api() {
      @Override
      public V2SpecChecks.Answer post(String path, String json) {
        TestWebapp.Answer answer = app.post(path, json);
        return new V2SpecChecks.Answer(answer.status(), answer.body());
      }

      @Override
      public V2SpecChecks.Answer get(String path) {
        TestWebapp.Answer answer = app.get(path);
        return new V2SpecChecks.Answer(answer.status(), answer.body());
      }
    };
    run = new V2SpecRun(api, filterSamples(), placeholders(), V2SpecTable.knownDifferences(),
        "known-differences.yaml");
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
    if (run != null) {
      System.out.print(run.summary("the web app test's documents"));
    }
  }

  @TestFactory
  Stream<DynamicTest> everyCheckTheSpecTablesGive() {
    return run.checks().stream().map(check -> DynamicTest.dynamicTest(check.name(), () -> run.run(check)));
  }

  /** Values of the data for filters on what the answers do not carry (the checks cannot read them from answers). */
  private static Map<String, JsonNode> filterSamples() {
    Map<String, JsonNode> samples = new HashMap<>();
    samples.put("process-definitions.isLatestVersion", V2SpecChecks.json("true"));
    samples.put("process-instances.batchOperationId", V2SpecChecks.json("\"1\""));
    samples.put("process-instances.errorMessage", V2SpecChecks.json("\"boom\""));
    samples.put("process-instances.hasRetriesLeft", V2SpecChecks.json("true"));
    samples.put("process-instances.elementInstanceState", V2SpecChecks.json("\"ACTIVE\""));
    samples.put("process-instances.elementId", V2SpecChecks.json("\"task\""));
    samples.put("process-instances.hasElementInstanceIncident", V2SpecChecks.json("true"));
    samples.put("process-instances.incidentErrorHashCode", V2SpecChecks.json(String.valueOf("boom".hashCode())));
    samples.put("element-instances.elementInstanceScopeKey", V2SpecChecks.json("\"1001\""));
    samples.put("jobs.isDenied", V2SpecChecks.json("false"));
    samples.put("jobs.deniedReason", V2SpecChecks.json("\"denied\""));
    samples.put("decision-definitions.isLatestVersion", V2SpecChecks.json("true"));
    samples.put("decision-definitions.decisionRequirementsName", V2SpecChecks.json("\"Dish for the season\""));
    samples.put("decision-definitions.decisionRequirementsVersion", V2SpecChecks.json("1"));
    samples.put("decision-instances.decisionRequirementsKey", V2SpecChecks.json("\"500\""));
    return samples;
  }

  private static Map<String, String> placeholders() {
    return Map.of("processInstanceKey", "1001", "processDefinitionKey", "1", "processDefinitionId", "order",
        "errorHashCode", String.valueOf("boom".hashCode()));
  }

  /**
   * Beside {@link ReadModelFixture}: DRD 500 with decisions 501 (season) and 502 (dish), evaluated by 7001 (instance
   * 1001, both decisions) and 7002 (instance 1002, failed at dish) and by the standalone 7003 (season only);
   * subscriptions 3001 (CORRELATED, by messages 4001 and 4002), 3002 (CREATED), 3003 (DELETED); instance 1001's flows
   * f1 to f3; open incidents with their error hashes on the active instances 1013, 1016 and 1022; instance 1030 of
   * definition 4 (refund), called by 1001, with two element instances, a variable and a job. The root instance is on
   * these documents as the writer derives it (ReadModelFixture's older documents lack it: answered null).
   */
  private static List<DocumentWrite> moreDocuments(String prefix) {
    List<DocumentWrite> writes = new ArrayList<>();
    String requirements = ReadModelIndex.DECISION_REQUIREMENTS.indexName(prefix);
    writes.add(ReadModelFixture.doc(requirements, 500, Map.of("decisionRequirementsId", "dish-drd",
        "name", "Dish for the season", "version", 1, "resourceName", "dish.dmn", "dmnXml", "<definitions/>",
        "tenantId", "<default>")));
    writes.add(ReadModelFixture.doc(requirements, 510, Map.of("decisionRequirementsId", "other-drd",
        "name", "Other", "version", 2, "resourceName", "other.dmn", "dmnXml", "<definitions/>",
        "tenantId", "<default>")));
    String definitions = ReadModelIndex.DECISION_DEFINITION.indexName(prefix);
    writes.add(decision(definitions, 501, "season", "Season", 500));
    writes.add(decision(definitions, 502, "dish", "Dish", 500));
    writes.add(decision(definitions, 511, "other", "Other", 510));
    String instances = ReadModelIndex.DECISION_INSTANCE.indexName(prefix);
    writes.add(decisionInstance(instances, 7001, 1, 1001, 501, "season", "LITERAL_EXPRESSION", "EVALUATED", 1));
    writes.add(decisionInstance(instances, 7001, 2, 1001, 502, "dish", "DECISION_TABLE", "EVALUATED", 1));
    writes.add(decisionInstance(instances, 7002, 1, 1002, 501, "season", "LITERAL_EXPRESSION", "EVALUATED", 2));
    writes.add(decisionInstance(instances, 7002, 2, 1002, 502, "dish", "DECISION_TABLE", "FAILED", 2));
    writes.add(decisionInstance(instances, 7003, 1, -1, 501, "season", "LITERAL_EXPRESSION", "EVALUATED", 3));
    String subscriptions = ReadModelIndex.MESSAGE_SUBSCRIPTION.indexName(prefix);
    writes.add(subscription(subscriptions, 3001, 1001, "boundary", "CORRELATED", "paid", "o-1", 3));
    writes.add(subscription(subscriptions, 3002, 1001, "wait", "CREATED", "shipped", "o-1", 1));
    writes.add(subscription(subscriptions, 3003, 1002, "wait", "DELETED", "shipped", "o-2", 2));
    String correlations = ReadModelIndex.MESSAGE_CORRELATION.indexName(prefix);
    // the definition instance 1001 ran at each correlation, as the writer fills it in: 4003 after a migration to 2
    writes.add(correlation(correlations, 3001, 4001, 1, 1));
    writes.add(correlation(correlations, 3001, 4002, 2, 1));
    writes.add(correlation(correlations, 3002, 4003, 3, 2));
    String flows = ReadModelIndex.SEQUENCE_FLOW.indexName(prefix);
    for (int i = 1; i <= 3; i++) {
      String id = "1001_f" + i;
      writes.add(new DocumentWrite(flows, id, i, Map.of("sequenceFlowId", id, "processInstanceKey", 1001,
          "processDefinitionKey", 1, "bpmnProcessId", "order", "elementId", "f" + i, "tenantId", "<default>",
          "rootProcessInstanceKey", 1001)));
    }
    writes.add(ReadModelFixture.doc(requirements, 520, Map.of("decisionRequirementsId", "third-drd",
        "name", "Third", "version", 1, "resourceName", "third.dmn", "dmnXml", "<definitions/>",
        "tenantId", "<default>")));
    String incidents = ReadModelIndex.INCIDENT.indexName(prefix);
    writes.add(incident(incidents, 7004, 1013, 2, "boom", 8003));
    writes.add(incident(incidents, 7005, 1016, 2, "bang", 8003));
    writes.add(incident(incidents, 7006, 1022, 3, "boom", 8003));
    // a called instance of a fourth definition, with what ReadModelFixture's documents leave out (tenants, parents,
    // a finished element instance, a job's deadline, end and error code)
    writes.add(ReadModelFixture.doc(ReadModelIndex.PROCESS_DEFINITION.indexName(prefix), 4, Map.of("bpmnProcessId",
        "refund", "version", 1, "name", "Refund", "resourceName", "refund.bpmn", "bpmnXml", ReadModelFixture.XML,
        "hasStartForm", false, "tenantId", "<default>")));
    Map<String, Object> called = new HashMap<>(Map.of("processDefinitionKey", 4, "bpmnProcessId", "refund",
        "version", 1, "state", "ACTIVE", "stateOrder", 0, "processDefinitionName", "Refund", "incident", false,
        "startDate", ReadModelFixture.date(31), "tenantId", "<default>", "rootProcessInstanceKey", 1001));
    called.put("parentProcessInstanceKey", 1001);
    called.put("parentElementInstanceKey", 5002);
    writes.add(ReadModelFixture.doc(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), 1030, called));
    String elements = ReadModelIndex.FLOW_NODE_INSTANCE.indexName(prefix);
    for (long key : List.of(5003L, 5004L)) {
      Map<String, Object> element = new HashMap<>(Map.of("processInstanceKey", 1030, "processDefinitionKey", 4,
          "bpmnProcessId", "refund", "elementId", key == 5003 ? "start" : "pay", "elementName", key == 5003 ? "start" : "Pay",
          "type", key == 5003 ? "START_EVENT" : "SERVICE_TASK", "state", key == 5003 ? "COMPLETED" : "ACTIVE",
          "startDate", ReadModelFixture.date(31), "tenantId", "<default>", "rootProcessInstanceKey", 1001));
      element.put("flowScopeKey", 1030);
      if (key == 5003) {
        element.put("endDate", ReadModelFixture.date(31));
      }
      writes.add(ReadModelFixture.doc(elements, key, element));
    }
    writes.add(ReadModelFixture.doc(ReadModelIndex.VARIABLE.indexName(prefix), 6004, Map.of("scopeKey", 1030,
        "processInstanceKey", 1030, "name", "amount", "value", "12", "truncated", false, "lastUpdate",
        ReadModelFixture.date(31), "tenantId", "<default>")));
    Map<String, Object> job = new HashMap<>(Map.of("processInstanceKey", 1030, "processDefinitionKey", 4,
        "bpmnProcessId", "refund", "elementInstanceKey", 5004, "elementId", "pay", "type", "pay", "worker", "w3",
        "retries", 1, "state", "ERROR_THROWN", "tenantId", "<default>"));
    job.putAll(Map.of("jobKind", "BPMN_ELEMENT", "listenerEventType", "UNSPECIFIED", "customHeaders", Map.of(),
        "hasFailedWithRetriesLeft", false, "creationTime", ReadModelFixture.date(31), "lastUpdateTime",
        ReadModelFixture.date(32), "endTime", ReadModelFixture.date(32), "deadline", ReadModelFixture.date(33),
        "errorCode", "no-funds", "rootProcessInstanceKey", 1001));
    job.put("stateOrder", 3);
    writes.add(ReadModelFixture.doc(ReadModelIndex.JOB.indexName(prefix), 8003, job));
    return writes;
  }

  /** An open incident with the error hash the writer keeps, on an active instance. */
  private static DocumentWrite incident(String index, long key, long instance, long definition, String message,
      long job) {
    Map<String, Object> incident = new HashMap<>(Map.of("processInstanceKey", instance, "processDefinitionKey",
        definition, "bpmnProcessId", definition == 3 ? "payment" : "order", "elementInstanceKey", key - 2000,
        "elementId", "task", "errorType", "JOB_NO_RETRIES", "errorMessage", message, "state", "ACTIVE"));
    incident.putAll(Map.of("errorMessageHash", message.hashCode(), "creationTime",
        ReadModelFixture.date((int) (instance - 1000)), "jobKey", job, "tenantId", "<default>",
        "rootProcessInstanceKey", instance));
    return ReadModelFixture.doc(index, key, incident);
  }

  private static DocumentWrite decision(String index, long key, String id, String name, long drd) {
    // with the DRD's name and version the writer copies onto the decision (for sorting)
    return ReadModelFixture.doc(index, key, Map.of("decisionId", id, "name", name, "version", 1,
        "decisionRequirementsId", drd == 500 ? "dish-drd" : "other-drd", "decisionRequirementsKey", drd,
        "decisionRequirementsName", drd == 500 ? "Dish for the season" : "Other", "decisionRequirementsVersion",
        drd == 500 ? 1 : 2, "tenantId", "<default>"));
  }

  private static DocumentWrite decisionInstance(String index, long evaluation, int n, long processInstance,
      long decision, String decisionId, String type, String state, int hour) {
    Map<String, Object> document = new HashMap<>();
    String id = evaluation + "-" + n;
    document.put("decisionInstanceId", id);
    document.put("evaluationKey", evaluation);
    document.put("state", state);
    document.put("evaluationDate", ReadModelFixture.date(hour));
    if (state.equals("FAILED")) {
      document.put("evaluationFailure", "multiple rules matched");
    }
    document.put("decisionKey", decision);
    document.put("rootDecisionKey", processInstance == -1 ? 501L : 502L);
    document.put("decisionId", decisionId);
    document.put("decisionName", decisionId.equals("dish") ? "Dish" : "Season");
    document.put("decisionVersion", 1);
    document.put("decisionType", type);
    document.put("decisionRequirementsKey", 500);
    document.put("decisionRequirementsId", "dish-drd");
    document.put("result", "\"Winter\"");
    document.put("evaluatedInputs", List.of());
    document.put("matchedRules", List.of());
    document.put("processDefinitionKey", processInstance == -1 ? -1 : 900);
    document.put("processInstanceKey", processInstance);
    document.put("elementInstanceKey", processInstance == -1 ? -1 : processInstance + 10);
    if (processInstance != -1) {
      document.put("rootProcessInstanceKey", processInstance);
    }
    document.put("tenantId", "<default>");
    document.put("partitionId", 1);
    return new DocumentWrite(index, id, evaluation * 10 + n, document);
  }

  private static DocumentWrite subscription(String index, long key, long instance, String elementId, String state,
      String message, String correlationKey, int hour) {
    return ReadModelFixture.doc(index, key, Map.of("processInstanceKey", instance, "bpmnProcessId", "order",
        "elementId", elementId, "elementInstanceKey", key + 100, "state", state, "lastUpdatedDate",
        ReadModelFixture.date(hour), "messageName", message, "correlationKey", correlationKey, "tenantId", "<default>"));
  }

  private static DocumentWrite correlation(String index, long subscription, long message, int hour,
      long definition) {
    Map<String, Object> document = new HashMap<>(Map.of("subscriptionKey", subscription, "messageKey", message,
        "processInstanceKey", 1001, "bpmnProcessId", "order", "elementId", "boundary", "elementInstanceKey",
        subscription + 100, "messageName", "paid", "correlationKey", "o-1", "correlationTime",
        ReadModelFixture.date(hour)));
    document.put("tenantId", "<default>");
    document.put("partitionId", 1);
    document.put("processDefinitionKey", definition);
    return new DocumentWrite(index, subscription + "_" + message, message, document);
  }
}
