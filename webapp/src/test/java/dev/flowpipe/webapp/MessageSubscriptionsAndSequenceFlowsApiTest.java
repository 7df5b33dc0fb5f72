package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.TestWebapp.Answer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Message subscriptions, their correlations, an instance's sequence flows, its call hierarchy and its incidents through
 * the v2 API, on a real OpenSearch holding documents as the writer's handlers write them: instance 1001 took flows
 * f1..f1200 (more than one store page) and has subscriptions 3001 (CORRELATED twice: a non-interrupting one, messages
 * 4001 and 4002) and 3002 (CREATED); instance 1002 has 3003 (DELETED). The call hierarchy: 1001 (definition 1, "Order")
 * called 1002 (definition 2, no name: "refund"), which called 1003 (definition 3, "Payment"); 1004 is a root of its
 * own. Each has one incident (7001..7004) and one variable (6001..6004); variable 6009 belongs to an instance the read
 * model lacks.
 */
@ExtendWith(SharedOpenSearch.class)
class MessageSubscriptionsAndSequenceFlowsApiTest {

  private static final int FLOWS = 1_200;
  private static TestWebapp app;

  @BeforeAll
  static void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    new SchemaManager(store, prefix, "1s").ensureSchema();
    List<DocumentWrite> writes = new ArrayList<>();
    String flows = ReadModelIndex.SEQUENCE_FLOW.indexName(prefix);
    for (int i = 1; i <= FLOWS; i++) {
      String id = "1001_f" + i;
      writes.add(new DocumentWrite(flows, id, i, Map.of("sequenceFlowId", id, "processInstanceKey", 1001,
          "processDefinitionKey", 1, "bpmnProcessId", "order", "elementId", "f" + i, "tenantId", "<default>")));
    }
    writes.add(new DocumentWrite(flows, "1002_other", 1, Map.of("sequenceFlowId", "1002_other",
        "processInstanceKey", 1002, "processDefinitionKey", 1, "bpmnProcessId", "order", "elementId", "other")));
    String subscriptions = ReadModelIndex.MESSAGE_SUBSCRIPTION.indexName(prefix);
    writes.add(subscription(subscriptions, 3001, 1001, "boundary", "CORRELATED", "paid", "o-1", 3));
    writes.add(subscription(subscriptions, 3002, 1001, "wait", "CREATED", "shipped", "o-1", 1));
    writes.add(subscription(subscriptions, 3003, 1002, "wait", "DELETED", "shipped", "o-2", 2));
    String correlations = ReadModelIndex.MESSAGE_CORRELATION.indexName(prefix);
    writes.add(correlation(correlations, 3001, 4002, 2));
    writes.add(correlation(correlations, 3001, 4001, 1));
    String instances = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    writes.add(instance(instances, 1001, 0, 1001, 1, "Order"));
    writes.add(instance(instances, 1002, 1001, 1001, 2, null));
    writes.add(instance(instances, 1003, 1002, 1001, 3, "Payment"));
    writes.add(instance(instances, 1004, 0, 1004, 1, "Order"));
    String incidents = ReadModelIndex.INCIDENT.indexName(prefix);
    String variables = ReadModelIndex.VARIABLE.indexName(prefix);
    for (long instance = 1001; instance <= 1004; instance++) {
      writes.add(ReadModelFixture.doc(incidents, instance + 6000, Map.of("processInstanceKey", instance,
          "rootProcessInstanceKey", instance == 1004 ? 1004 : 1001, "errorType", "JOB_NO_RETRIES", "errorMessage",
          "boom", "errorMessageHash", "boom".hashCode(), "state", "ACTIVE", "creationTime", ReadModelFixture.date(1),
          "tenantId", "<default>")));
      writes.add(ReadModelFixture.doc(variables, instance + 5000, Map.of("scopeKey", instance, "processInstanceKey",
          instance, "name", "x", "value", "1", "truncated", false, "lastUpdate", ReadModelFixture.date(1))));
    }
    writes.add(ReadModelFixture.doc(variables, 6009, Map.of("scopeKey", 1999, "processInstanceKey", 1999, "name", "x",
        "value", "1", "truncated", false, "lastUpdate", ReadModelFixture.date(1))));
    store.bulk(ReadModelFixture.withIncidentsOnInstances(store, prefix, writes), true);
    app = TestWebapp.start(Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix));
  }

  private static DocumentWrite instance(String index, long key, long parent, long root, long definition,
      String definitionName) {
    Map<String, Object> document = new HashMap<>(Map.of("processDefinitionKey", definition, "bpmnProcessId",
        definitionName == null ? "refund" : definitionName.toLowerCase(Locale.ROOT), "version", 1,
        "state", "ACTIVE", "stateOrder", 0, "incident", true, "startDate", ReadModelFixture.date(1),
        "rootProcessInstanceKey", root, "tenantId", "<default>"));
    if (parent > 0) {
      document.put("parentProcessInstanceKey", parent);
    }
    if (definitionName != null) {
      document.put("processDefinitionName", definitionName);
    }
    return ReadModelFixture.doc(index, key, document);
  }

  private static DocumentWrite subscription(String index, long key, long instance, String elementId, String state,
      String message, String correlationKey, int hour) {
    return ReadModelFixture.doc(index, key, Map.of("processInstanceKey", instance, "bpmnProcessId", "order",
        "elementId", elementId, "elementInstanceKey", key + 100, "state", state, "lastUpdatedDate",
        ReadModelFixture.date(hour), "messageName", message, "correlationKey", correlationKey, "tenantId", "<default>"));
  }

  private static DocumentWrite correlation(String index, long subscription, long message, int hour) {
    Map<String, Object> document = new HashMap<>(Map.of("subscriptionKey", subscription, "messageKey", message,
        "processInstanceKey", 1001, "bpmnProcessId", "order", "elementId", "boundary", "elementInstanceKey",
        subscription + 100, "messageName", "paid", "correlationKey", "o-1", "correlationTime",
        ReadModelFixture.date(hour)));
    document.put("tenantId", "<default>");
    document.put("partitionId", 1);
    // as the writer fills it in: the definition the instance ran at the correlation
    document.put("processDefinitionKey", 1);
    return new DocumentWrite(index, subscription + "_" + message, message, document);
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  private static JsonNode ok(Answer answer) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json();
  }

  private static List<String> values(JsonNode answer, String field) {
    List<String> values = new ArrayList<>();
    answer.path("items").forEach(item -> values.add(item.path(field).asText()));
    return values;
  }

  @Nested
  class SequenceFlows {

    @Test
    void anInstancesFlowsAreAllAnsweredEachOnceBeyondOneStorePage() {
      JsonNode answer = ok(app.get("/v2/process-instances/1001/sequence-flows"));

      assertThat(answer.path("items")).hasSize(FLOWS);
      assertThat(values(answer, "elementId")).doesNotHaveDuplicates().doesNotContain("other").contains("f1", "f1200");
      JsonNode first = answer.path("items").get(0);
      assertThat(first.path("sequenceFlowId").asText()).isEqualTo("1001_" + first.path("elementId").asText());
      assertThat(first.path("processInstanceKey").asText()).isEqualTo("1001");
      assertThat(first.path("processDefinitionKey").asText()).isEqualTo("1");
      assertThat(first.path("processDefinitionId").asText()).isEqualTo("order");
      assertThat(first.path("tenantId").asText()).isEqualTo("<default>");
    }

    @Test
    void anUnknownInstanceHasNoFlows() {
      assertThat(ok(app.get("/v2/process-instances/999/sequence-flows")).path("items")).isEmpty();
    }

    @Test
    void aKeyThatIsNoNumberIsA400NamingIt() {
      Answer answer = app.get("/v2/process-instances/abc/sequence-flows");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.json().path("part").asText()).isEqualTo("processInstanceKey");
    }
  }

  @Nested
  class MessageSubscriptions {

    @Test
    void areFilteredByStateInTheV2NamesAndSortedByMessageName() {
      JsonNode answer = ok(app.post("/v2/message-subscriptions/search",
          "{\"filter\": {\"messageSubscriptionState\": {\"$in\": [\"CREATED\", \"CORRELATED\"], \"$notIn\": []}},"
              + " \"sort\": [{\"field\": \"messageName\", \"order\": \"desc\"}]}"));

      assertThat(values(answer, "messageSubscriptionKey")).containsExactly("3002", "3001");
      assertThat(values(answer, "messageSubscriptionState")).containsExactly("CREATED", "CORRELATED");
      assertThat(answer.path("page").path("totalItems").asLong()).isEqualTo(2);
    }

    @Test
    void answerEveryFieldTheReadModelHolds() {
      JsonNode item = ok(app.post("/v2/message-subscriptions/search",
          "{\"filter\": {\"messageSubscriptionKey\": \"3003\"}}")).path("items").get(0);

      assertThat(item.path("processInstanceKey").asText()).isEqualTo("1002");
      assertThat(item.path("processDefinitionId").asText()).isEqualTo("order");
      assertThat(item.path("elementId").asText()).isEqualTo("wait");
      assertThat(item.path("elementInstanceKey").asText()).isEqualTo("3103");
      assertThat(item.path("messageSubscriptionState").asText()).isEqualTo("DELETED");
      assertThat(item.path("lastUpdatedDate").asText()).isEqualTo(ReadModelFixture.date(2));
      assertThat(item.path("messageName").asText()).isEqualTo("shipped");
      assertThat(item.path("correlationKey").asText()).isEqualTo("o-2");
      assertThat(item.path("tenantId").asText()).isEqualTo("<default>");
    }

    @Test
    void answerTheDefinitionKeyOfTheirInstanceWhichZeebe86sRecordsDoNotCarry() {
      JsonNode answer = ok(app.post("/v2/message-subscriptions/search",
          "{\"sort\": [{\"field\": \"messageSubscriptionKey\"}]}"));

      assertThat(values(answer, "processDefinitionKey")).containsExactly("1", "1", "2");
    }

    @Test
    void aStateOutsideTheSpecIsA400NamingIt() {
      Answer answer = app.post("/v2/message-subscriptions/search",
          "{\"filter\": {\"messageSubscriptionState\": \"CREATING\"}}");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.json().path("part").asText()).isEqualTo("filter.messageSubscriptionState");
    }

    @Test
    void haveNoGetByKeyAsInTheV2Api() {
      assertThat(app.get("/v2/message-subscriptions/3001").status()).isIn(404, 405);
    }
  }

  @Nested
  class CorrelatedMessageSubscriptions {

    @Test
    void areOnePerSubscriptionAndMessageInAStableOrderAcrossPages() {
      JsonNode first = ok(app.post("/v2/correlated-message-subscriptions/search",
          "{\"filter\": {\"subscriptionKey\": \"3001\"}, \"page\": {\"limit\": 1}}"));
      JsonNode second = ok(app.post("/v2/correlated-message-subscriptions/search",
          "{\"filter\": {\"subscriptionKey\": \"3001\"}, \"page\": {\"limit\": 1, \"after\": \""
              + first.path("page").path("endCursor").asText() + "\"}}"));

      assertThat(first.path("page").path("totalItems").asLong()).isEqualTo(2);
      assertThat(values(first, "messageKey")).containsExactly("4001");
      assertThat(values(second, "messageKey")).containsExactly("4002");
    }

    @Test
    void answerTheSpecsFieldsWithTheDefinitionTheWriterFilledIn() {
      JsonNode item = ok(app.post("/v2/correlated-message-subscriptions/search",
          "{\"filter\": {\"messageKey\": \"4002\"}}")).path("items").get(0);

      assertThat(item.path("subscriptionKey").asText()).isEqualTo("3001");
      assertThat(item.path("correlationKey").asText()).isEqualTo("o-1");
      assertThat(item.path("correlationTime").asText()).isEqualTo(ReadModelFixture.date(2));
      assertThat(item.path("messageName").asText()).isEqualTo("paid");
      assertThat(item.path("partitionId").asInt()).isEqualTo(1);
      assertThat(item.path("processInstanceKey").asText()).isEqualTo("1001");
      assertThat(item.path("processDefinitionKey").asText()).isEqualTo("1");
    }
  }

  @Nested
  class Variables {

    @Test
    void answerTheRootOfTheirInstanceSearchedAndByKey() {
      JsonNode answer = ok(app.post("/v2/variables/search", "{\"sort\": [{\"field\": \"variableKey\"}]}"));

      assertThat(values(answer, "variableKey")).containsExactly("6001", "6002", "6003", "6004", "6009");
      assertThat(values(answer, "rootProcessInstanceKey")).containsExactly("1001", "1001", "1001", "1004", "null");
      assertThat(answer.path("items").get(4).get("rootProcessInstanceKey").isNull()).isTrue();
      assertThat(ok(app.get("/v2/variables/6003")).path("rootProcessInstanceKey").asText()).isEqualTo("1001");
    }
  }

  @Nested
  class CallHierarchy {

    @Test
    void runsFromTheRootDownToTheInstanceWithTheDefinitionsNameOrElseItsId() {
      JsonNode answer = ok(app.get("/v2/process-instances/1003/call-hierarchy"));

      assertThat(answer).hasSize(3);
      List<String> keys = new ArrayList<>();
      List<String> names = new ArrayList<>();
      answer.forEach(entry -> {
        keys.add(entry.path("processInstanceKey").asText() + "/" + entry.path("processDefinitionKey").asText());
        names.add(entry.path("processDefinitionName").asText());
      });
      assertThat(keys).containsExactly("1001/1", "1002/2", "1003/3");
      assertThat(names).containsExactly("Order", "refund", "Payment");
    }

    @Test
    void ofARootInstanceIsEmptyAsCamundaAnswers() {
      assertThat(ok(app.get("/v2/process-instances/1001/call-hierarchy"))).isEmpty();
    }

    @Test
    void ofAnUnknownInstanceIsA404AndOfABadKeyA400NamingIt() {
      assertThat(app.get("/v2/process-instances/1999/call-hierarchy").status()).isEqualTo(404);
      Answer bad = app.get("/v2/process-instances/x1/call-hierarchy");
      assertThat(bad.status()).isEqualTo(400);
      assertThat(bad.json().path("part").asText()).isEqualTo("processInstanceKey");
    }
  }

  @Nested
  class IncidentsOfAnInstance {

    @Test
    void ofARootAreThoseOfEveryInstanceItCalledAtAnyDepth() {
      JsonNode answer = ok(app.post("/v2/process-instances/1001/incidents/search",
          "{\"sort\": [{\"field\": \"incidentKey\"}]}"));

      assertThat(values(answer, "incidentKey")).containsExactly("7001", "7002", "7003");
      assertThat(answer.path("page").path("totalItems").asLong()).isEqualTo(3);
    }

    @Test
    void ofACalledInstanceAreItsOwnAndThoseBelowItNotItsCallers() {
      JsonNode answer = ok(app.post("/v2/process-instances/1002/incidents/search",
          "{\"sort\": [{\"field\": \"incidentKey\", \"order\": \"desc\"}], \"page\": {\"limit\": 1}}"));

      assertThat(values(answer, "incidentKey")).containsExactly("7003");
      assertThat(answer.path("page").path("totalItems").asLong()).isEqualTo(2);
    }

    @Test
    void takeTheIncidentFilterAsWell() {
      JsonNode answer = ok(app.post("/v2/process-instances/1001/incidents/search",
          "{\"filter\": {\"processInstanceKey\": {\"$in\": [\"1003\", \"1004\"], \"$notIn\": []}}}"));

      assertThat(values(answer, "incidentKey")).containsExactly("7003");
    }

    @Test
    void ofAnUnknownInstanceAreA404() {
      assertThat(app.post("/v2/process-instances/1999/incidents/search", "{}").status()).isEqualTo(404);
    }
  }
}
