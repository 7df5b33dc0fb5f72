package dev.flowpipe.webapp;

import static dev.flowpipe.webapp.TestWebapp.values;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.webapp.TestWebapp.Answer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests shaped by Camunda's REST API v2 (8.8) search schemas, and the shapes of the answers, on a real OpenSearch
 * holding {@link ReadModelFixture}. The expected values are the specification's, written out here (the oracle is the
 * spec, not our mapping): api/camunda/version-8.8/camunda-openapi.yaml of camunda/camunda-docs at
 * 467a7475452daaacb05ab778005e960b2b81428d.
 */
@ExtendWith(FixtureWebapp.class)
class CamundaV2ConformanceTest {

  static final List<String> PROCESS_INSTANCE_STATES = List.of("ACTIVE", "COMPLETED", "TERMINATED");
  static final List<String> ELEMENT_INSTANCE_STATES = List.of("ACTIVE", "COMPLETED", "TERMINATED");
  static final List<String> ELEMENT_TYPES = List.of(
      "UNSPECIFIED", "PROCESS", "SUB_PROCESS", "EVENT_SUB_PROCESS", "AD_HOC_SUB_PROCESS",
      "AD_HOC_SUB_PROCESS_INNER_INSTANCE", "START_EVENT", "INTERMEDIATE_CATCH_EVENT", "INTERMEDIATE_THROW_EVENT",
      "BOUNDARY_EVENT", "END_EVENT", "SERVICE_TASK", "RECEIVE_TASK", "USER_TASK", "MANUAL_TASK", "TASK",
      "EXCLUSIVE_GATEWAY", "INCLUSIVE_GATEWAY", "PARALLEL_GATEWAY", "EVENT_BASED_GATEWAY", "SEQUENCE_FLOW",
      "MULTI_INSTANCE_BODY", "CALL_ACTIVITY", "BUSINESS_RULE_TASK", "SCRIPT_TASK", "SEND_TASK", "UNKNOWN");
  static final List<String> INCIDENT_STATES = List.of("ACTIVE", "MIGRATED", "RESOLVED", "PENDING");
  static final List<String> INCIDENT_ERROR_TYPES = List.of(
      "UNSPECIFIED", "UNKNOWN", "IO_MAPPING_ERROR", "JOB_NO_RETRIES", "EXECUTION_LISTENER_NO_RETRIES",
      "TASK_LISTENER_NO_RETRIES", "AD_HOC_SUB_PROCESS_NO_RETRIES", "CONDITION_ERROR", "EXTRACT_VALUE_ERROR",
      "CALLED_ELEMENT_ERROR", "UNHANDLED_ERROR_EVENT", "MESSAGE_SIZE_EXCEEDED", "CALLED_DECISION_ERROR",
      "DECISION_EVALUATION_ERROR", "FORM_NOT_FOUND", "RESOURCE_NOT_FOUND");
  static final List<String> JOB_STATES = List.of(
      "CANCELED", "COMPLETED", "CREATED", "ERROR_THROWN", "FAILED", "MIGRATED", "RETRIES_UPDATED", "TIMED_OUT");

  private static TestWebapp app;

  @BeforeAll
  static void start(TestWebapp onFixture) {
    app = onFixture;
  }

  private static List<String> instanceKeys(IntStream indexes) {
    return indexes.mapToObj(i -> String.valueOf(1000 + i)).toList();
  }

  private static List<String> terminatedInstances() {
    return instanceKeys(IntStream.range(0, 30).filter(i -> ReadModelFixture.state(i).equals("CANCELED")));
  }

  @Nested
  class EnumValues {

    @Test
    void terminatedFindsTheCancelledProcessInstancesAndTheirAnswersSayTerminated() {
      JsonNode answer = app.search("process-instances", "{\"filter\": {\"state\": \"TERMINATED\"}, \"page\": {\"limit\": 100}}");

      assertThat(values(answer, "processInstanceKey")).containsExactlyElementsOf(terminatedInstances());
      assertThat(values(answer, "state")).containsOnly("TERMINATED");
    }

    @Test
    void canceledStaysAcceptedAsAnAliasOfTerminated() {
      JsonNode answer = app.search("process-instances", "{\"filter\": {\"state\": {\"$in\": [\"CANCELED\"]}}, \"page\": {\"limit\": 100}}");

      assertThat(values(answer, "processInstanceKey")).containsExactlyElementsOf(terminatedInstances());
      assertThat(values(answer, "state")).containsOnly("TERMINATED");
    }

    @Test
    void aGetByKeyAnswersTheSpecState() {
      assertThat(app.get("/v2/process-instances/1002").json().path("state").asText()).isEqualTo("TERMINATED");
      assertThat(app.get("/v2/jobs/8002").json().path("state").asText()).isEqualTo("CREATED");
    }

    @Test
    void likeOnAStateMatchesTheSpecNames() {
      JsonNode answer = app.search("process-instances", "{\"filter\": {\"state\": {\"$like\": \"TERM*\"}}, \"page\": {\"limit\": 100}}");

      assertThat(values(answer, "processInstanceKey")).containsExactlyElementsOf(terminatedInstances());
    }

    @Test
    void createdJobsIncludeTheOnesAWorkerHasActivated() {
      // Camunda's read model records no activation: a job a worker holds is still CREATED (with worker and deadline)
      JsonNode answer = app.search("jobs", "{\"filter\": {\"state\": \"CREATED\"}}");

      assertThat(values(answer, "jobKey")).containsExactly("8002");
      assertThat(values(answer, "state")).containsExactly("CREATED");
      assertThat(values(answer, "worker")).containsExactly("w2");
    }

    static Stream<Arguments> everySpecValue() {
      Stream.Builder<Arguments> all = Stream.builder();
      PROCESS_INSTANCE_STATES.forEach(v -> all.add(Arguments.of("process-instances", "state", v)));
      ELEMENT_INSTANCE_STATES.forEach(v -> all.add(Arguments.of("element-instances", "state", v)));
      ELEMENT_TYPES.forEach(v -> all.add(Arguments.of("element-instances", "type", v)));
      INCIDENT_STATES.forEach(v -> all.add(Arguments.of("incidents", "state", v)));
      INCIDENT_ERROR_TYPES.forEach(v -> all.add(Arguments.of("incidents", "errorType", v)));
      JOB_STATES.forEach(v -> all.add(Arguments.of("jobs", "state", v)));
      return all.build();
    }

    @ParameterizedTest(name = "{0} {1} = {2}")
    @MethodSource("everySpecValue")
    void everyValueTheSpecListsIsAcceptedAndFindsOnlyItself(String entity, String field, String value) {
      for (String condition : List.of("\"" + value + "\"", "{\"$eq\": \"" + value + "\"}", "{\"$in\": [\"" + value + "\"]}")) {
        JsonNode answer = app.search(entity, "{\"filter\": {\"" + field + "\": " + condition + "}, \"page\": {\"limit\": 100}}");

        assertThat(values(answer, field)).as(condition).allMatch(value::equals);
      }
    }

    static Stream<Arguments> everyEnumField() {
      return Stream.of(
          Arguments.of("process-instances", "state", PROCESS_INSTANCE_STATES),
          Arguments.of("element-instances", "state", ELEMENT_INSTANCE_STATES),
          Arguments.of("element-instances", "type", ELEMENT_TYPES),
          Arguments.of("incidents", "state", INCIDENT_STATES),
          Arguments.of("incidents", "errorType", INCIDENT_ERROR_TYPES),
          Arguments.of("jobs", "state", JOB_STATES));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyEnumField")
    void answersUseOnlyTheSpecValuesAndTheSpecValuesCoverEveryItem(String entity, String field, List<String> spec) {
      JsonNode all = app.search(entity, "{\"page\": {\"limit\": 100}}");
      JsonNode anyOfTheSpec = app.search(entity, "{\"filter\": {\"" + field + "\": {\"$in\": " + json(spec) + "}}, \"page\": {\"limit\": 100}}");

      assertThat(values(all, field)).isNotEmpty().allSatisfy(value -> assertThat(spec).contains(value));
      assertThat(anyOfTheSpec.path("page").path("totalItems").asLong()).isEqualTo(all.path("page").path("totalItems").asLong());
    }

    @ParameterizedTest(name = "{0} {1} = {2}")
    @CsvSource({
      "process-instances, state, RUNNING",
      "element-instances, type, BPMN_SERVICE_TASK",
      "incidents, errorType, NO_RETRIES",
      "jobs, state, ACTIVATED"
    })
    void aValueTheSpecDoesNotListIs400(String entity, String field, String value) {
      Answer answer = app.post("/v2/" + entity + "/search", "{\"filter\": {\"" + field + "\": \"" + value + "\"}}");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.json().path("part").asText()).isEqualTo("filter." + field);
    }
  }

  @Nested
  class FilterFieldsAndOperators {

    @Test
    void orCombinesAlternativeGroupsWithTheTopLevelConditions() {
      JsonNode answer = app.search("process-instances",
          "{\"filter\": {\"state\": \"ACTIVE\", \"$or\": [{\"processDefinitionId\": \"payment\"},"
              + " {\"processDefinitionId\": \"order\", \"hasIncident\": true}]}, \"page\": {\"limit\": 100}}");

      assertThat(values(answer, "processInstanceKey")).containsExactlyElementsOf(instanceKeys(IntStream.range(0, 30)
          .filter(i -> ReadModelFixture.state(i).equals("ACTIVE"))
          .filter(i -> i >= 20 || ReadModelFixture.hasIncident(i))));
    }

    /** Camunda's 8.8 Java client sends these empty lists with every filter; Camunda applies each only when non-empty. */
    @Test
    void theEmptyListsCamundasClientSendsConstrainNothing() {
      JsonNode asTheClientSendsIt = app.search("process-instances",
          "{\"filter\": {\"processDefinitionId\": {\"$eq\": \"payment\", \"$in\": [], \"$notIn\": []},"
              + " \"state\": {\"$in\": [], \"$notIn\": []}, \"tags\": [], \"variables\": [], \"$or\": []},"
              + " \"page\": {\"limit\": 100}}");

      assertThat(values(asTheClientSendsIt, "processInstanceKey")).containsExactlyElementsOf(
          instanceKeys(IntStream.range(20, 30)));
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
      "{\"$or\": {}} | filter.$or | non-empty array",
      "{\"$or\": [{\"colour\": 1}]} | filter.$or[0].colour | unknown field",
      "{\"$or\": [{\"$or\": [{\"state\": \"ACTIVE\"}]}]} | filter.$or[0].$or | nested"
    })
    void aBadOrIsNamed(String filter, String part, String detail) {
      Answer answer = app.post("/v2/process-instances/search", "{\"filter\": " + filter + "}");

      assertThat(answer.status()).as(answer.body()).isEqualTo(400);
      assertThat(answer.json().path("part").asText()).isEqualTo(part);
      assertThat(answer.json().path("detail").asText()).contains(detail);
    }

    @Test
    void elementInstancesFilterOnHasIncident() {
      assertThat(values(app.search("element-instances", "{\"filter\": {\"hasIncident\": true}}"), "elementInstanceKey"))
          .containsExactly("5002");
      assertThat(values(app.search("element-instances", "{\"filter\": {\"hasIncident\": false}}"), "elementInstanceKey"))
          .containsExactly("5001");
    }

    static Stream<Arguments> everyOperatorOfEveryKindOfField() {
      return Stream.of(
          // string fields: $eq $neq $exists $in $notIn $like
          Arguments.of("process-instances", "{\"processDefinitionId\": {\"$eq\": \"payment\"}}", 10),
          Arguments.of("process-instances", "{\"processDefinitionId\": {\"$neq\": \"payment\"}}", 20),
          Arguments.of("process-instances", "{\"tenantId\": {\"$exists\": true}}", 30),
          Arguments.of("process-instances", "{\"processDefinitionId\": {\"$in\": [\"payment\", \"x\"]}}", 10),
          Arguments.of("process-instances", "{\"processDefinitionId\": {\"$notIn\": [\"payment\"]}}", 20),
          Arguments.of("process-instances", "{\"processDefinitionId\": {\"$like\": \"pay*\"}}", 10),
          // integer fields: $eq $neq $exists $gt $gte $lt $lte $in
          Arguments.of("process-instances", "{\"processDefinitionVersion\": {\"$eq\": 2}}", 10),
          Arguments.of("process-instances", "{\"processDefinitionVersion\": {\"$neq\": 2}}", 20),
          Arguments.of("process-instances", "{\"processDefinitionVersion\": {\"$exists\": true}}", 30),
          Arguments.of("process-instances", "{\"processDefinitionVersion\": {\"$gt\": 1}}", 10),
          Arguments.of("process-instances", "{\"processDefinitionVersion\": {\"$gte\": 1}}", 30),
          Arguments.of("process-instances", "{\"processDefinitionVersion\": {\"$lt\": 2}}", 20),
          Arguments.of("process-instances", "{\"processDefinitionVersion\": {\"$lte\": 2}}", 30),
          Arguments.of("process-instances", "{\"processDefinitionVersion\": {\"$in\": [2, 3]}}", 10),
          // date-time fields: the same
          Arguments.of("process-instances", "{\"startDate\": {\"$eq\": \"" + ReadModelFixture.date(3) + "\"}}", 1),
          Arguments.of("process-instances", "{\"startDate\": {\"$neq\": \"" + ReadModelFixture.date(3) + "\"}}", 29),
          Arguments.of("process-instances", "{\"endDate\": {\"$exists\": false}}", 10),
          Arguments.of("process-instances", "{\"startDate\": {\"$gt\": \"" + ReadModelFixture.date(27) + "\"}}", 2),
          Arguments.of("process-instances", "{\"startDate\": {\"$gte\": \"" + ReadModelFixture.date(27) + "\"}}", 3),
          Arguments.of("process-instances", "{\"startDate\": {\"$lt\": \"" + ReadModelFixture.date(2) + "\"}}", 2),
          Arguments.of("process-instances", "{\"startDate\": {\"$lte\": \"" + ReadModelFixture.date(2) + "\"}}", 3),
          Arguments.of("process-instances",
              "{\"startDate\": {\"$in\": [\"" + ReadModelFixture.date(2) + "\", \"" + ReadModelFixture.date(4) + "\"]}}", 2),
          // keys (strings of digits): $eq $neq $exists $in $notIn
          Arguments.of("process-instances", "{\"processDefinitionKey\": {\"$eq\": \"3\"}}", 10),
          Arguments.of("process-instances", "{\"processDefinitionKey\": {\"$neq\": \"3\"}}", 20),
          Arguments.of("process-instances", "{\"parentProcessInstanceKey\": {\"$exists\": false}}", 30),
          Arguments.of("process-instances", "{\"processInstanceKey\": {\"$in\": [\"1001\", \"1002\"]}}", 2),
          Arguments.of("process-instances", "{\"processInstanceKey\": {\"$notIn\": [\"1001\", \"1002\"]}}", 28),
          // enums: $eq $neq $exists $in $like
          Arguments.of("process-instances", "{\"state\": {\"$eq\": \"TERMINATED\"}}", 10),
          Arguments.of("process-instances", "{\"state\": {\"$neq\": \"TERMINATED\"}}", 20),
          Arguments.of("process-instances", "{\"state\": {\"$exists\": true}}", 30),
          Arguments.of("process-instances", "{\"state\": {\"$in\": [\"TERMINATED\", \"ACTIVE\"]}}", 20),
          Arguments.of("process-instances", "{\"state\": {\"$like\": \"?OMPLETED\"}}", 10),
          // booleans: a plain value
          Arguments.of("process-instances", "{\"hasIncident\": false}", 27),
          // the latest version of each process id: order v2 (2) and payment v1 (3)
          Arguments.of("process-definitions", "{\"isLatestVersion\": true}", 2),
          Arguments.of("process-definitions", "{\"isLatestVersion\": false}", 1),
          Arguments.of("process-definitions", "{\"isLatestVersion\": true, \"processDefinitionId\": \"order\"}", 1),
          // the filters on other entities (counts from ReadModelFixture's literal terms)
          Arguments.of("process-instances", "{\"variables\": [{\"name\": \"tier\", \"value\": \"\\\"gold\\\"\"}]}", 9),
          Arguments.of("process-instances", "{\"variables\": [{\"name\": \"tier\", \"value\": {\"$neq\": \"\\\"gold\\\"\"}}]}", 21),
          Arguments.of("process-instances", "{\"variables\": [{\"name\": \"x\", \"value\": {\"$exists\": true}}]}", 1),
          Arguments.of("process-instances", "{\"variables\": [{\"name\": \"tier\", \"value\": {\"$in\": [\"\\\"gold\\\"\"]}}]}", 9),
          Arguments.of("process-instances", "{\"variables\": [{\"name\": \"tier\", \"value\": {\"$notIn\": [\"\\\"gold\\\"\"]}}]}", 21),
          Arguments.of("process-instances", "{\"variables\": [{\"name\": \"tier\", \"value\": {\"$like\": \"*ol*\"}}]}", 9),
          Arguments.of("process-instances", "{\"errorMessage\": {\"$eq\": \"boom\"}}", 1),
          Arguments.of("process-instances", "{\"errorMessage\": {\"$neq\": \"boom\"}}", 29),
          Arguments.of("process-instances", "{\"errorMessage\": {\"$in\": [\"boom\", \"no retries left\"]}}", 2),
          Arguments.of("process-instances", "{\"errorMessage\": {\"$notIn\": [\"boom\"]}}", 29),
          Arguments.of("process-instances", "{\"errorMessage\": {\"$like\": \"*retries*\"}}", 1),
          Arguments.of("process-instances", "{\"incidentErrorHashCode\": {\"$gt\": " + Integer.MIN_VALUE + "}}", 2),
          Arguments.of("process-instances", "{\"hasRetriesLeft\": true}", 1),
          Arguments.of("process-instances", "{\"elementId\": {\"$in\": [\"start\", \"task\"]}}", 3),
          Arguments.of("process-instances", "{\"elementId\": {\"$exists\": false}}", 27),
          Arguments.of("process-instances", "{\"elementInstanceState\": {\"$notIn\": [\"ACTIVE\"]}}", 2),
          Arguments.of("process-instances", "{\"elementInstanceState\": {\"$like\": \"COMP*\"}}", 2),
          Arguments.of("process-instances", "{\"elementInstanceState\": {\"$exists\": true}}", 3),
          Arguments.of("process-instances", "{\"hasElementInstanceIncident\": false}", 2));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyOperatorOfEveryKindOfField")
    void everyOperatorTheSpecListsWorks(String entity, String filter, int expected) {
      JsonNode answer = app.search(entity, "{\"filter\": " + filter + ", \"page\": {\"limit\": 0}}");

      assertThat(answer.path("page").path("totalItems").asLong()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
      "jobs, isDenied",
      "jobs, deniedReason"
    })
    void aSpecFieldTheReadModelDoesNotHoldIsRefusedSayingSo(String entity, String field) {
      Answer answer = app.post("/v2/" + entity + "/search", "{\"filter\": {\"" + field + "\": \"x\"}}");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.json().path("part").asText()).isEqualTo("filter." + field);
      assertThat(answer.json().path("detail").asText()).contains("Camunda's REST API v2").contains("read model");
    }
  }

  @Nested
  class SortAndPage {

    static Stream<Arguments> everySortFieldOfTheSpecThatTheReadModelHolds() {
      return Stream.of(
          Arguments.of("process-definitions", List.of("processDefinitionKey", "name", "resourceName", "version",
              "versionTag", "processDefinitionId", "tenantId")),
          Arguments.of("process-instances", List.of("processInstanceKey", "processDefinitionId",
              "processDefinitionName", "processDefinitionVersion", "processDefinitionVersionTag", "processDefinitionKey",
              "parentProcessInstanceKey", "parentElementInstanceKey", "startDate", "endDate", "state", "hasIncident",
              "tenantId")),
          Arguments.of("element-instances", List.of("elementInstanceKey", "processInstanceKey", "processDefinitionKey",
              "processDefinitionId", "startDate", "endDate", "elementId", "elementName", "type", "state", "incidentKey",
              "tenantId")),
          Arguments.of("variables", List.of("value", "name", "tenantId", "variableKey", "scopeKey", "processInstanceKey")),
          Arguments.of("incidents", List.of("incidentKey", "processDefinitionKey", "processDefinitionId",
              "processInstanceKey", "errorType", "errorMessage", "elementId", "elementInstanceKey", "creationTime", "state",
              "jobKey", "tenantId")),
          Arguments.of("jobs", List.of("deadline", "elementId", "elementInstanceKey", "errorCode", "errorMessage",
              "jobKey", "kind", "listenerEventType", "hasFailedWithRetriesLeft", "creationTime", "lastUpdateTime",
              "endTime", "processDefinitionId", "processDefinitionKey", "processInstanceKey", "retries", "state",
              "tenantId", "type", "worker")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everySortFieldOfTheSpecThatTheReadModelHolds")
    void sortsOnEveryFieldInBothSpecOrders(String entity, List<String> fields) {
      for (String field : fields) {
        for (String order : List.of("ASC", "DESC")) {
          app.search(entity, "{\"sort\": [{\"field\": \"" + field + "\", \"order\": \"" + order + "\"}], \"page\": {\"limit\": 2}}");
        }
      }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"process-definitions", "process-instances", "element-instances", "variables", "incidents", "jobs"})
    void answersThePageFieldsOfTheSpecInEveryPageMode(String entity) {
      JsonNode first = app.search(entity, "{\"page\": {\"from\": 0, \"limit\": 1}}");
      JsonNode next = app.search(entity, "{\"page\": {\"after\": \"" + first.path("page").path("endCursor").asText() + "\", \"limit\": 1}}");
      JsonNode back = app.search(entity, "{\"page\": {\"before\": \"" + next.path("page").path("startCursor").asText() + "\", \"limit\": 1}}");

      for (JsonNode answer : List.of(first, next, back)) {
        JsonNode page = answer.path("page");
        assertThat(page.path("totalItems").isIntegralNumber()).isTrue();
        assertThat(page.path("hasMoreTotalItems").isBoolean()).as(page.toString()).isTrue();
        assertThat(page.path("hasMoreTotalItems").asBoolean()).isFalse();
        assertThat(page.path("startCursor").isTextual()).isTrue();
        assertThat(page.path("endCursor").isTextual()).isTrue();
      }
      assertThat(back.path("items")).isEqualTo(first.path("items"));
    }
  }

  @Nested
  class NamesAndJobFields {

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
      "process-definitions | {\"versionTag\": \"v2\"} | processDefinitionKey | 2",
      "process-instances | {\"processDefinitionName\": \"Payment\"} | processInstanceKey | 1020,1021,1022,1023,1024,1025,1026,1027,1028,1029",
      "process-instances | {\"processDefinitionName\": {\"$like\": \"Pay*\"}, \"processInstanceKey\": {\"$lte\": 1021}} | processInstanceKey | 1020,1021",
      "process-instances | {\"processDefinitionVersionTag\": \"v2\", \"processInstanceKey\": {\"$lte\": 1011}} | processInstanceKey | 1010,1011",
      "process-instances | {\"rootProcessInstanceKey\": \"1005\"} | processInstanceKey | 1005",
      "element-instances | {\"elementName\": \"Ship\"} | elementInstanceKey | 5002",
      "element-instances | {\"elementInstanceScopeKey\": \"1001\"} | elementInstanceKey | 5001,5002",
      "element-instances | {\"elementInstanceScopeKey\": \"5002\"} | elementInstanceKey | ",
      "element-instances | {\"elementName\": {\"$in\": [\"Ship\", \"Order placed\"]}} | elementInstanceKey | 5001,5002",
      "incidents | {\"errorMessage\": \"boom\"} | incidentKey | 7002",
      "incidents | {\"errorMessage\": {\"$like\": \"no retries*\"}} | incidentKey | 7001",
      "jobs | {\"errorMessage\": \"no retries left\"} | jobKey | 8001",
      "jobs | {\"kind\": \"EXECUTION_LISTENER\"} | jobKey | 8002",
      "jobs | {\"listenerEventType\": {\"$in\": [\"UNSPECIFIED\"]}} | jobKey | 8001",
      "jobs | {\"hasFailedWithRetriesLeft\": true} | jobKey | 8002",
      "jobs | {\"creationTime\": {\"$gte\": \"2026-01-01T03:00:00Z\"}} | jobKey | 8002",
      "jobs | {\"lastUpdateTime\": {\"$lt\": \"2026-01-01T03:00:00Z\"}} | jobKey | 8001",
      "jobs | {\"endTime\": {\"$exists\": false}} | jobKey | 8001,8002",
      "jobs | {\"rootProcessInstanceKey\": \"1004\"} | jobKey | 8002"
    })
    void filtersOnTheFieldsOperateShows(String entity, String filter, String key, String expected) {
      JsonNode answer = app.search(entity, "{\"filter\": " + filter + ", \"page\": {\"limit\": 100}}");

      assertThat(values(answer, key)).containsExactlyElementsOf(expected == null ? List.of() : List.of(expected.split(",")));
    }

    @Test
    void answersCarryTheNamesAndTheJobFields() {
      JsonNode instance = app.get("/v2/process-instances/1020").json();
      JsonNode element = app.get("/v2/element-instances/5002").json();
      JsonNode job = app.get("/v2/jobs/8001").json();

      assertThat(instance.path("processDefinitionName").asText()).isEqualTo("Payment");
      assertThat(instance.path("rootProcessInstanceKey").asText()).isEqualTo("1020");
      assertThat(element.path("elementName").asText()).isEqualTo("Ship");
      assertThat(job.path("kind").asText()).isEqualTo("BPMN_ELEMENT");
      assertThat(job.path("listenerEventType").asText()).isEqualTo("UNSPECIFIED");
      assertThat(job.path("customHeaders").path("priority").asText()).isEqualTo("high");
      assertThat(job.path("hasFailedWithRetriesLeft").isBoolean()).isTrue();
      assertThat(job.path("creationTime").asText()).isEqualTo(ReadModelFixture.date(1));
    }

    @Test
    void theStateSortFollowsTheOrderOfTheSpecEnum() {
      JsonNode ascending = app.search("process-instances", "{\"sort\": [{\"field\": \"state\", \"order\": \"asc\"}], \"page\": {\"limit\": 100}}");
      JsonNode descending = app.search("process-instances", "{\"sort\": [{\"field\": \"state\", \"order\": \"desc\"}], \"page\": {\"limit\": 100}}");

      List<String> states = values(ascending, "state");
      assertThat(states).containsExactlyElementsOf(states.stream()
          .sorted(java.util.Comparator.comparingInt(PROCESS_INSTANCE_STATES::indexOf)).toList());
      assertThat(states.getFirst()).isEqualTo("ACTIVE");
      assertThat(states.getLast()).isEqualTo("TERMINATED");
      assertThat(values(descending, "state").getFirst()).isEqualTo("TERMINATED");
    }

    @Test
    void cursorsAreStandardBase64WithPaddingAndPageAfterPageFollowsTheStateOrder() {
      // the spec's cursor pattern: standard base64 alphabet, padded to a multiple of four
      java.util.regex.Pattern base64 =
          java.util.regex.Pattern.compile("^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$");
      List<String> paged = new ArrayList<>();
      String after = null;
      for (int i = 0; i < 10; i++) {
        JsonNode answer = app.search("process-instances", "{\"sort\": [{\"field\": \"state\"}], \"page\": {\"limit\": 7"
            + (after == null ? "" : ", \"after\": \"" + after + "\"") + "}}");
        paged.addAll(values(answer, "processInstanceKey"));
        if (answer.path("items").isEmpty()) {
          break;
        }
        assertThat(answer.path("page").path("startCursor").asText()).matches(base64);
        after = answer.path("page").path("endCursor").asText();
        assertThat(after).matches(base64);
      }
      JsonNode all = app.search("process-instances", "{\"sort\": [{\"field\": \"state\"}], \"page\": {\"limit\": 100}}");
      assertThat(paged).containsExactlyElementsOf(values(all, "processInstanceKey"));
    }

    @Test
    void aPageOfTenThousandIsServed() {
      JsonNode answer = app.search("variables", "{\"page\": {\"limit\": 10000}}");

      assertThat(answer.path("items").size()).isEqualTo((int) answer.path("page").path("totalItems").asLong());
      assertThat(app.post("/v2/variables/search", "{\"page\": {\"limit\": 10001}}").status()).isEqualTo(400);
    }
  }

  @Nested
  class KeysAndErrors {

    static Stream<Arguments> everyKeyField() {
      return Stream.of(
          Arguments.of("process-definitions", List.of("processDefinitionKey")),
          Arguments.of("process-instances", List.of("processInstanceKey", "processDefinitionKey")),
          Arguments.of("element-instances", List.of("elementInstanceKey", "processInstanceKey", "processDefinitionKey", "incidentKey")),
          Arguments.of("variables", List.of("variableKey", "scopeKey", "processInstanceKey")),
          Arguments.of("incidents", List.of("incidentKey", "processInstanceKey", "processDefinitionKey", "elementInstanceKey")),
          Arguments.of("jobs", List.of("jobKey", "processInstanceKey", "processDefinitionKey", "elementInstanceKey")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyKeyField")
    void keysAreStringsInAnswersAndAcceptedAsStringsInFilters(String entity, List<String> keys) {
      JsonNode all = app.search(entity, "{\"page\": {\"limit\": 100}}");
      for (String key : keys) {
        JsonNode withKey = null;
        for (JsonNode item : all.path("items")) {
          if (item.hasNonNull(key)) {
            withKey = item;
            assertThat(item.path(key).isTextual()).as(key).isTrue();
          }
        }
        assertThat(withKey).as(key).isNotNull();
        JsonNode found = app.search(entity, "{\"filter\": {\"" + key + "\": \"" + withKey.path(key).asText() + "\"}}");
        assertThat(values(found, key)).as(key).isNotEmpty().containsOnly(withKey.path(key).asText());
      }
    }

    /** The fields of the spec's ProblemDetail. */
    private JsonNode problem(Answer answer, int status, String title, String instance) {
      assertThat(answer.status()).isEqualTo(status);
      assertThat(answer.contentType()).isEqualTo("application/problem+json");
      JsonNode problem = answer.json();
      assertThat(problem.path("type").asText()).isEqualTo("about:blank");
      assertThat(problem.path("title").asText()).isEqualTo(title);
      assertThat(problem.path("status").asInt()).isEqualTo(status);
      assertThat(problem.path("instance").asText()).isEqualTo(instance);
      return problem;
    }

    @Test
    void a400IsAProblemDetailWithTheSpecFieldsAndOurPart() {
      JsonNode problem = problem(app.post("/v2/process-instances/search", "{\"filter\": {\"state\": \"RUNNING\"}}"),
          400, "Bad Request", "/v2/process-instances/search");

      assertThat(problem.path("detail").asText()).contains("RUNNING");
      assertThat(problem.path("part").asText()).isEqualTo("filter.state");
    }

    @Test
    void a404IsAProblemDetailWithTheSpecFields() {
      JsonNode problem = problem(app.get("/v2/incidents/424242"), 404, "Not Found", "/v2/incidents/424242");

      assertThat(problem.path("detail").asText()).contains("424242");
    }

    @Test
    void aSearchWithoutConsistencyAnswersNothingBeyondTheSpecShape() {
      Answer answer = app.post("/v2/jobs/search", "{}");

      assertThat(answer.json().has("consistency")).isFalse();
      assertThat(answer.header(dev.flowpipe.webapp.api.SearchController.CONSISTENCY_HEADER)).isNull();
      List<String> topLevel = new ArrayList<>();
      answer.json().fieldNames().forEachRemaining(topLevel::add);
      assertThat(topLevel).containsExactlyInAnyOrder("items", "page");
    }
  }

  private static String json(List<String> values) {
    return values.stream().map(v -> "\"" + v + "\"").collect(java.util.stream.Collectors.joining(", ", "[", "]"));
  }
}
