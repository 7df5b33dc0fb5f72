package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.webapp.TestWebapp.Answer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The search API of the standalone web app on a real OpenSearch holding {@link ReadModelFixture}. */
@ExtendWith(FixtureWebapp.class)
class SearchApiTest {

  private static TestWebapp app;

  @BeforeAll
  static void start(TestWebapp onFixture) {
    app = onFixture;
  }

  private static JsonNode search(String entity, String request) {
    return app.search(entity, request);
  }

  private static List<String> keys(JsonNode answer, String keyField) {
    return TestWebapp.values(answer, keyField);
  }

  private static List<String> instances(String filter) {
    return keys(search("process-instances", "{\"filter\": " + filter + ", \"page\": {\"limit\": 100}}"), "processInstanceKey");
  }

  private static List<String> instanceKeys(IntStream indexes) {
    return indexes.mapToObj(i -> String.valueOf(1000 + i)).toList();
  }

  @Nested
  class EveryEndpoint {

    @Test
    void searchesProcessDefinitionsInApiFieldNamesWithoutTheXml() {
      JsonNode answer = search("process-definitions", "{\"filter\": {\"processDefinitionId\": \"order\"}}");

      assertThat(answer.path("page").path("totalItems").asLong()).isEqualTo(2);
      JsonNode first = answer.path("items").get(0);
      assertThat(first.path("processDefinitionKey").asText()).isEqualTo("1");
      assertThat(first.path("processDefinitionId").asText()).isEqualTo("order");
      assertThat(first.path("version").asInt()).isEqualTo(1);
      assertThat(first.path("name").asText()).isEqualTo("Order");
      assertThat(first.has("bpmnXml")).isFalse();
    }

    @Test
    void searchesProcessInstancesWithKeysAsStrings() {
      JsonNode answer = search("process-instances", "{\"filter\": {\"processInstanceKey\": \"1001\"}}");

      JsonNode item = answer.path("items").get(0);
      assertThat(item.path("processInstanceKey").isTextual()).isTrue();
      assertThat(item.path("processInstanceKey").asText()).isEqualTo("1001");
      assertThat(item.path("processDefinitionKey").asText()).isEqualTo("1");
      assertThat(item.path("processDefinitionId").asText()).isEqualTo("order");
      assertThat(item.path("processDefinitionVersion").asInt()).isEqualTo(1);
      assertThat(item.path("state").asText()).isEqualTo("ACTIVE");
      assertThat(item.path("hasIncident").asBoolean()).isTrue();
      assertThat(item.path("startDate").asText()).isEqualTo(ReadModelFixture.date(1));
      // a nullable field the spec requires: present, null
      assertThat(item.has("endDate")).isTrue();
      assertThat(item.get("endDate").isNull()).isTrue();
    }

    @Test
    void searchesElementInstancesAndTellsWhichHaveAnIncident() {
      JsonNode answer = search("element-instances", "{\"filter\": {\"processInstanceKey\": 1001}}");

      assertThat(keys(answer, "elementInstanceKey")).containsExactly("5001", "5002");
      assertThat(answer.path("items").get(0).path("hasIncident").asBoolean()).isFalse();
      assertThat(answer.path("items").get(1).path("hasIncident").asBoolean()).isTrue();
      assertThat(answer.path("items").get(1).path("incidentKey").asText()).isEqualTo("7001");
      assertThat(answer.path("items").get(1).path("type").asText()).isEqualTo("SERVICE_TASK");
    }

    @Test
    void searchesVariablesWithTruncatedValuesAndGetsTheFullValueByKey() {
      JsonNode answer = search("variables", "{\"filter\": {\"name\": \"big\"}}");
      Answer byKey = app.get("/v2/variables/6003");

      assertThat(answer.path("items").get(0).path("value").asText()).isEqualTo("\"yyyy");
      assertThat(answer.path("items").get(0).path("isTruncated").asBoolean()).isTrue();
      assertThat(answer.path("items").get(0).has("fullValue")).isFalse();
      assertThat(byKey.json().path("value").asText()).isEqualTo("\"yyyyyyyy\"");
      assertThat(byKey.json().path("isTruncated").asBoolean()).isFalse();
    }

    @Test
    void searchesIncidentsAndJobs() {
      assertThat(keys(search("incidents", "{\"filter\": {\"state\": \"ACTIVE\"}}"), "incidentKey"))
          .containsExactly("7001", "7002");
      JsonNode jobs = search("jobs", "{\"filter\": {\"state\": \"FAILED\"}}");
      assertThat(keys(jobs, "jobKey")).containsExactly("8001");
      assertThat(jobs.path("items").get(0).path("retries").asInt()).isZero();
      assertThat(jobs.path("items").get(0).path("worker").asText()).isEqualTo("w1");
    }

    @ParameterizedTest(name = "GET /v2/{0}/{1}")
    @CsvSource({
      "process-definitions, 2, processDefinitionKey",
      "process-instances, 1013, processInstanceKey",
      "element-instances, 5002, elementInstanceKey",
      "variables, 6001, variableKey",
      "incidents, 7002, incidentKey",
      "jobs, 8002, jobKey"
    })
    void getsEachEntityByItsKey(String entity, String key, String keyField) {
      Answer answer = app.get("/v2/" + entity + "/" + key);

      assertThat(answer.status()).isEqualTo(200);
      assertThat(answer.json().path(keyField).asText()).isEqualTo(key);
    }

    @Test
    void servesTheBpmnXmlOfAProcessDefinition() {
      Answer answer = app.get("/v2/process-definitions/3/xml");

      assertThat(answer.status()).isEqualTo(200);
      assertThat(answer.contentType()).startsWith("text/xml");
      assertThat(answer.body()).isEqualTo(ReadModelFixture.XML);
    }

    @Test
    void anEmptyBodySearchesEverythingWithTheDefaultPage() {
      Answer answer = app.send(HttpRequest.newBuilder(URI.create(app.baseUrl() + "/v2/process-instances/search"))
          .POST(HttpRequest.BodyPublishers.noBody()));

      assertThat(answer.status()).isEqualTo(200);
      assertThat(answer.json().path("page").path("totalItems").asLong()).isEqualTo(30);
      assertThat(answer.json().path("items")).hasSize(30);
    }

    @Test
    void servesTheUi() {
      Answer index = app.get("/");

      assertThat(index.status()).isEqualTo(200);
      assertThat(index.body()).contains("<script type=\"module\" src=\"app.js\">");
      assertThat(app.get("/app.js").status()).isEqualTo(200);
      JsonNode config = app.get("/ui/config").json();
      assertThat(config.path("refreshIntervalMillis").asLong()).isEqualTo(1000);
      // without authentication the operations are off unless switched on: the UI shows no controls for them
      assertThat(config.path("operationsEnabled").asBoolean()).isFalse();
      assertThat(config.path("canOperate").asBoolean()).isFalse();
      assertThat(config.path("canMigrate").asBoolean()).isFalse();
      assertThat(config.path("canDelete").asBoolean()).isFalse();
    }
  }

  @Nested
  class EveryFilterOperator {

    @Test
    void plainValueAndEq() {
      assertThat(instances("{\"state\": \"ACTIVE\", \"processDefinitionId\": \"payment\"}"))
          .containsExactlyElementsOf(instanceKeys(IntStream.range(20, 30).filter(i -> i % 3 == 1)));
      assertThat(instances("{\"processDefinitionVersion\": {\"$eq\": 2}}"))
          .containsExactlyElementsOf(instanceKeys(IntStream.range(10, 20)));
    }

    @Test
    void neq() {
      assertThat(instances("{\"processDefinitionId\": {\"$neq\": \"order\"}}"))
          .containsExactlyElementsOf(instanceKeys(IntStream.range(20, 30)));
    }

    @Test
    void existsTrueAndFalse() {
      assertThat(instances("{\"endDate\": {\"$exists\": false}}"))
          .containsExactlyElementsOf(instanceKeys(IntStream.range(0, 30).filter(i -> i % 3 == 1)));
      assertThat(instances("{\"endDate\": {\"$exists\": true}}")).hasSize(20);
    }

    @Test
    void inAndNotIn() {
      assertThat(instances("{\"processInstanceKey\": {\"$in\": [\"1003\", 1005, \"99\"]}}"))
          .containsExactly("1003", "1005");
      assertThat(instances("{\"state\": {\"$notIn\": [\"ACTIVE\", \"CANCELED\"]}}"))
          .containsExactlyElementsOf(instanceKeys(IntStream.range(0, 30).filter(i -> i % 3 == 0)));
    }

    @Test
    void like() {
      assertThat(instances("{\"processDefinitionId\": {\"$like\": \"pay*\"}}")).hasSize(10);
      assertThat(instances("{\"processDefinitionId\": {\"$like\": \"?rder\"}}")).hasSize(20);
    }

    @Test
    void rangesOnDatesAndKeys() {
      assertThat(instances(
              "{\"startDate\": {\"$gte\": \"" + ReadModelFixture.date(5) + "\", \"$lt\": \"" + ReadModelFixture.date(8) + "\"}}"))
          .containsExactly("1005", "1006", "1007");
      assertThat(instances("{\"processInstanceKey\": {\"$gt\": \"1026\"}}")).containsExactly("1027", "1028", "1029");
      assertThat(instances("{\"processInstanceKey\": {\"$lte\": 1001}}")).containsExactly("1000", "1001");
      assertThat(instances("{\"startDate\": {\"$gt\": \"2026-01-02T04:30:00+02:00\"}}"))
          .containsExactly("1027", "1028", "1029");
    }

    @Test
    void booleanField() {
      assertThat(instances("{\"hasIncident\": true}")).containsExactly("1001", "1013", "1025");
    }

    @Test
    void incidentKeyExistsOnElementInstances() {
      assertThat(keys(search("element-instances", "{\"filter\": {\"incidentKey\": {\"$exists\": true}}}"), "elementInstanceKey"))
          .containsExactly("5002");
    }
  }

  @Nested
  class TheVariableFilter {

    private List<String> withVariables(String items) {
      return instances("{\"variables\": " + items + "}");
    }

    private List<String> gold() {
      return instanceKeys(IntStream.range(0, 30).filter(i -> i % 4 == 0 || i == 2));
    }

    @Test
    void aValueAsJsonTextFindsTheInstancesHoldingItInAnyScope() {
      assertThat(withVariables("[{\"name\": \"tier\", \"value\": \"\\\"gold\\\"\"}]")).containsExactlyElementsOf(gold());
      assertThat(withVariables("[{\"name\": \"tier\", \"value\": {\"$eq\": \"\\\"gold\\\"\"}}]"))
          .containsExactlyElementsOf(gold());
      assertThat(withVariables("[{\"name\": \"x\", \"value\": \"1\"}]")).containsExactly("1001");
      assertThat(withVariables("[{\"name\": \"x\", \"value\": \"\\\"1\\\"\"}]")).as("the string 1 is not the number 1")
          .isEmpty();
    }

    @Test
    void everyItemMustHoldAndANameHoldingAnEqualsSignIsNoOtherName() {
      assertThat(withVariables("[{\"name\": \"tier\", \"value\": \"\\\"gold\\\"\"}, {\"name\": \"a=b\", \"value\": \"1\"}]"))
          .containsExactly("1002");
      assertThat(withVariables("[{\"name\": \"a\", \"value\": \"b=1\"}]")).isEmpty();
    }

    @Test
    void inNotInNeqLikeAndExists() {
      assertThat(withVariables("[{\"name\": \"tier\", \"value\": {\"$in\": [\"\\\"gold\\\"\", \"\\\"bronze\\\"\"]}}]"))
          .containsExactlyElementsOf(gold());
      List<String> silverOnly = instanceKeys(IntStream.range(0, 30).filter(i -> i % 4 != 0 && i != 2));
      assertThat(withVariables("[{\"name\": \"tier\", \"value\": {\"$neq\": \"\\\"gold\\\"\"}}]"))
          .containsExactlyElementsOf(silverOnly);
      assertThat(withVariables("[{\"name\": \"tier\", \"value\": {\"$notIn\": [\"\\\"gold\\\"\"]}}]"))
          .containsExactlyElementsOf(silverOnly);
      assertThat(withVariables("[{\"name\": \"tier\", \"value\": {\"$like\": \"\\\"sil*\"}}]"))
          .containsExactlyElementsOf(instanceKeys(IntStream.range(0, 30).filter(i -> i % 4 != 0)));
      assertThat(withVariables("[{\"name\": \"note\", \"value\": {\"$exists\": true}}]")).containsExactly("1001");
      assertThat(withVariables("[{\"name\": \"note\", \"value\": {\"$exists\": false}}]")).hasSize(29);
    }

    @Test
    void anEmptyListAndEmptyListsOfValuesConstrainNothing() {
      assertThat(withVariables("[]")).hasSize(30);
      assertThat(withVariables("[{\"name\": \"x\", \"value\": {\"$eq\": \"1\", \"$in\": [], \"$notIn\": []}}]"))
          .containsExactly("1001");
    }

    @Test
    void combinesWithTheOtherFieldsAndWithinOr() {
      assertThat(instances("{\"state\": \"ACTIVE\", \"variables\": [{\"name\": \"tier\", \"value\": \"\\\"gold\\\"\"}]}"))
          .containsExactlyElementsOf(instanceKeys(IntStream.range(0, 30).filter(i -> i % 4 == 0 && i % 3 == 1)));
      assertThat(instances("{\"$or\": [{\"variables\": [{\"name\": \"x\", \"value\": \"1\"}]}, {\"processInstanceKey\": 1029}]}"))
          .containsExactly("1001", "1029");
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
      "{\"variables\": {\"name\": \"x\"}} | filter.variables | expected an array",
      "{\"variables\": [{\"value\": \"1\"}]} | filter.variables[0].name | variable name",
      "{\"variables\": [{\"name\": \"x\"}]} | filter.variables[0].value | JSON text",
      "{\"variables\": [{\"name\": \"x\", \"value\": 1}]} | filter.variables[0].value | JSON text in a string",
      "{\"variables\": [{\"name\": \"x\", \"value\": {\"$gt\": \"1\"}}]} | filter.variables[0].value.$gt | unknown operator",
      "{\"variables\": [{\"name\": \"x\", \"scope\": 1, \"value\": \"1\"}]} | filter.variables[0].scope | unknown"
    })
    void aBadItemIsAnsweredWith400NamingIt(String filter, String part, String detail) {
      Answer answer = app.post("/v2/process-instances/search", "{\"filter\": " + filter + "}");

      assertThat(answer.status()).as(answer.body()).isEqualTo(400);
      assertThat(answer.contentType()).isEqualTo("application/problem+json");
      assertThat(answer.json().path("detail").asText()).startsWith(part + ":").contains(detail);
    }

    @Test
    void answersHoldNoVariableEntries() {
      JsonNode item = search("process-instances", "{\"filter\": {\"processInstanceKey\": 1001}}").path("items").get(0);
      assertThat(item.has("variableEntries")).isFalse();
      assertThat(item.path("processInstanceKey").asText()).isEqualTo("1001");
    }
  }

  /** The process-instance filters on what other entities hold: incidents, jobs, element instances; and tags. */
  @Nested
  class FiltersOnOtherEntities {

    @Test
    void errorMessageIsTheMessageOfAnOpenIncident() {
      assertThat(instances("{\"errorMessage\": \"boom\"}")).containsExactly("1013");
      assertThat(instances("{\"errorMessage\": {\"$like\": \"no retries*\"}}")).containsExactly("1001");
      assertThat(instances("{\"errorMessage\": {\"$exists\": true}}")).containsExactly("1001", "1013");
      assertThat(instances("{\"errorMessage\": \"fixed\"}")).as("a resolved incident's message").isEmpty();
    }

    @Test
    void incidentErrorHashCodeIsTheJavaHashOfThatMessage() {
      assertThat(instances("{\"incidentErrorHashCode\": " + "boom".hashCode() + "}")).containsExactly("1013");
      assertThat(instances("{\"incidentErrorHashCode\": {\"$in\": [" + "boom".hashCode() + ", "
          + "no retries left".hashCode() + "]}}")).containsExactly("1001", "1013");
    }

    @Test
    void hasRetriesLeftIsAJobThatFailedWithRetriesLeft() {
      assertThat(instances("{\"hasRetriesLeft\": true}")).containsExactly("1004");
      assertThat(instances("{\"hasRetriesLeft\": false}")).hasSize(29).doesNotContain("1004");
    }

    @Test
    void elementIdStateAndIncidentAreMatchedOnOneElementInstance() {
      assertThat(instances("{\"elementId\": \"task\"}")).containsExactly("1001", "1013", "1025");
      assertThat(instances("{\"elementId\": \"start\"}")).containsExactly("1001");
      assertThat(instances("{\"elementId\": \"task\", \"elementInstanceState\": \"ACTIVE\"}"))
          .containsExactly("1001", "1013");
      assertThat(instances("{\"elementId\": \"task\", \"elementInstanceState\": \"ACTIVE\", "
          + "\"hasElementInstanceIncident\": false}")).as("both active tasks have an incident").isEmpty();
      assertThat(instances("{\"elementId\": \"start\", \"hasElementInstanceIncident\": true}"))
          .as("1001's incident is on its task, not its start event").isEmpty();
      assertThat(instances("{\"elementId\": \"task\", \"elementInstanceState\": {\"$in\": [\"COMPLETED\", \"TERMINATED\"]}}"))
          .containsExactly("1025");
      assertThat(instances("{\"elementInstanceState\": {\"$neq\": \"ACTIVE\"}}")).containsExactly("1001", "1025");
      assertThat(instances("{\"elementId\": {\"$like\": \"ta*\"}, \"hasElementInstanceIncident\": true}"))
          .containsExactly("1001", "1013");
      assertThat(instances("{\"hasElementInstanceIncident\": true}")).containsExactly("1001", "1013");
      assertThat(instances("{\"elementId\": {\"$eq\": \"task\", \"$in\": [], \"$notIn\": []}}"))
          .containsExactly("1001", "1013", "1025");
    }

    @Test
    void isLatestVersionIsTheHighestVersionOfEachProcessId() {
      assertThat(keys(search("process-definitions", "{\"filter\": {\"isLatestVersion\": true}}"), "processDefinitionKey"))
          .containsExactly("2", "3");
      assertThat(keys(search("process-definitions", "{\"filter\": {\"isLatestVersion\": false}}"), "processDefinitionKey"))
          .containsExactly("1");
    }

    @Test
    void hasStartFormIsAnsweredAndFiltered() {
      JsonNode answer = search("process-definitions", "{\"filter\": {\"hasStartForm\": true}}");
      assertThat(keys(answer, "processDefinitionKey")).containsExactly("3");
      assertThat(answer.path("items").get(0).path("hasStartForm").asBoolean()).isTrue();
    }

    @Test
    void tagsAreNoneOnZeebe86SoOnlyAnEmptyListMatches() {
      assertThat(instances("{\"tags\": []}")).hasSize(30);
      assertThat(instances("{\"tags\": [\"gold\"]}")).isEmpty();
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
      "{\"elementId\": {\"$neq\": \"task\"}} | filter.elementId.$neq | not supported on an element id",
      "{\"elementInstanceState\": \"RUNNING\"} | filter.elementInstanceState | expected one of",
      "{\"hasElementInstanceIncident\": \"yes\"} | filter.hasElementInstanceIncident | true or false",
      "{\"tags\": [1]} | filter.tags[0] | a tag",
      "{\"batchOperationId\": 1} | filter.batchOperationId | expected a batch operation key"
    })
    void aBadConditionIsAnsweredWith400NamingIt(String filter, String part, String detail) {
      Answer answer = app.post("/v2/process-instances/search", "{\"filter\": " + filter + "}");

      assertThat(answer.status()).as(answer.body()).isEqualTo(400);
      assertThat(answer.json().path("detail").asText()).startsWith(part + ":").contains(detail);
    }

    @Test
    void theyAreNotSortedOnNorAnswered() {
      Answer sorted = app.post("/v2/process-instances/search", "{\"sort\": [{\"field\": \"errorMessage\"}]}");
      assertThat(sorted.status()).as(sorted.body()).isEqualTo(400);
      JsonNode item = search("process-instances", "{\"filter\": {\"processInstanceKey\": 1001}}").path("items").get(0);
      assertThat(item.has("errorMessage")).isFalse();
      assertThat(item.has("hasRetriesLeft")).isFalse();
    }
  }

  @Nested
  class Sorting {

    @Test
    void sortsByAFieldAndThenByKey() {
      JsonNode answer = search("process-instances",
          "{\"sort\": [{\"field\": \"processDefinitionId\", \"order\": \"desc\"}, {\"field\": \"state\"}], \"page\": {\"limit\": 4}}");

      // payment first; among its instances the v2 enum's order (ACTIVE, COMPLETED, TERMINATED), each by key
      assertThat(keys(answer, "processInstanceKey")).containsExactly("1022", "1025", "1028", "1021");
    }

    @Test
    void sortsByDateDescendingWithUpperCaseOrder() {
      JsonNode answer = search("process-instances", "{\"sort\": [{\"field\": \"startDate\", \"order\": \"DESC\"}], \"page\": {\"limit\": 3}}");

      assertThat(keys(answer, "processInstanceKey")).containsExactly("1029", "1028", "1027");
    }

    @Test
    void instancesWithoutTheSortedFieldComeLast() {
      JsonNode answer = search("process-instances", "{\"sort\": [{\"field\": \"endDate\", \"order\": \"desc\"}], \"page\": {\"limit\": 30}}");

      List<String> keys = keys(answer, "processInstanceKey");
      assertThat(keys.subList(20, 30)).containsExactlyElementsOf(instanceKeys(IntStream.range(0, 30).filter(i -> i % 3 == 1)));
      assertThat(keys.getFirst()).isEqualTo("1029");
    }
  }

  @Nested
  class Paging {

    private static final String ORDER = "\"sort\": [{\"field\": \"endDate\"}]";

    private JsonNode page(String page) {
      return search("process-instances", "{" + ORDER + ", \"page\": " + page + "}");
    }

    @Test
    void fromSkipsItems() {
      JsonNode answer = page("{\"from\": 5, \"limit\": 3}");

      assertThat(answer.path("page").path("totalItems").asLong()).isEqualTo(30);
      assertThat(keys(answer, "processInstanceKey")).isEqualTo(keys(page("{\"limit\": 30}"), "processInstanceKey").subList(5, 8));
    }

    @Test
    void afterWalksForwardThroughEveryItemOnceIncludingThoseWithoutTheSortedField() {
      List<String> all = keys(page("{\"limit\": 30}"), "processInstanceKey");
      List<String> walked = new ArrayList<>();
      JsonNode answer = page("{\"limit\": 7}");
      while (answer.path("items").size() > 0) {
        walked.addAll(keys(answer, "processInstanceKey"));
        answer = page("{\"after\": \"" + answer.path("page").path("endCursor").asText() + "\", \"limit\": 7}");
      }

      assertThat(walked).containsExactlyElementsOf(all);
      assertThat(answer.path("page").path("endCursor").isNull()).isTrue();
    }

    @Test
    void beforeWalksBackwardFromTheLastPage() {
      List<String> all = keys(page("{\"limit\": 30}"), "processInstanceKey");
      JsonNode last = page("{\"from\": 23, \"limit\": 7}");
      List<String> walked = new ArrayList<>(keys(last, "processInstanceKey"));
      JsonNode answer = last;
      while (true) {
        answer = page("{\"before\": \"" + answer.path("page").path("startCursor").asText() + "\", \"limit\": 7}");
        if (answer.path("items").isEmpty()) {
          break;
        }
        walked.addAll(0, keys(answer, "processInstanceKey"));
      }

      assertThat(walked).containsExactlyElementsOf(all);
    }

    @Test
    void aZeroLimitCountsOnly() {
      JsonNode answer = search("process-instances", "{\"filter\": {\"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}}");

      assertThat(answer.path("items")).isEmpty();
      assertThat(answer.path("page").path("totalItems").asLong()).isEqualTo(10);
      assertThat(answer.path("page").path("startCursor").isNull()).isTrue();
    }
  }

  @Nested
  class Errors {

    private void badRequest(String entity, String request, String part, String detailPart) {
      Answer answer = app.post("/v2/" + entity + "/search", request);

      assertThat(answer.status()).as(answer.body()).isEqualTo(400);
      assertThat(answer.contentType()).isEqualTo("application/problem+json");
      assertThat(answer.json().path("part").asText()).isEqualTo(part);
      assertThat(answer.json().path("status").asInt()).isEqualTo(400);
      assertThat(answer.json().path("detail").asText()).startsWith(part + ":").contains(detailPart);
    }

    @ParameterizedTest(name = "{2}")
    @CsvSource(delimiter = '|', value = {
      "process-instances | {\"filter\": {\"nope\": 1}} | filter.nope | unknown field",
      "process-instances | {\"filter\": {\"state\": \"RUNNING\"}} | filter.state | expected one of",
      "process-instances | {\"filter\": {\"state\": {\"$in\": [\"ACTIVE\", 3]}}} | filter.state.$in[1] | expected a string",
      "process-instances | {\"filter\": {\"state\": {\"$in\": \"ACTIVE\"}}} | filter.state.$in | non-empty array",
      "process-instances | {\"filter\": {\"state\": {\"$regex\": \"A\"}}} | filter.state.$regex | unknown operator",
      "process-instances | {\"filter\": {\"processDefinitionVersion\": {\"$like\": \"1*\"}}} | filter.processDefinitionVersion.$like | string fields",
      "process-instances | {\"filter\": {\"state\": {\"$gt\": \"A\"}}} | filter.state.$gt | keys, numbers and dates",
      "process-instances | {\"filter\": {\"startDate\": {\"$gte\": \"yesterday\"}}} | filter.startDate.$gte | ISO-8601",
      "process-instances | {\"filter\": {\"processInstanceKey\": \"12ab\"}} | filter.processInstanceKey | expected a key",
      "process-instances | {\"filter\": {\"hasIncident\": \"yes\"}} | filter.hasIncident | true or false",
      "process-instances | {\"filter\": {\"endDate\": {\"$exists\": 1}}} | filter.endDate.$exists | true or false",
      "process-instances | {\"filter\": {\"state\": null}} | filter.state | expected a string",
      "process-instances | {\"filter\": [1]} | filter | expected an object",
      "jobs | {\"filter\": {\"customHeaders\": \"x\"}} | filter.customHeaders | free text",
      "process-instances | {\"sort\": [{\"field\": \"colour\"}]} | sort[0].field | unknown field",
      "process-instances | {\"sort\": [{\"field\": \"state\", \"order\": \"up\"}]} | sort[0].order | asc",
      "process-instances | {\"sort\": {\"field\": \"state\"}} | sort | expected an array",
      "process-instances | {\"page\": {\"limit\": 100000}} | page.limit | 0 to 10000",
      "process-instances | {\"page\": {\"limit\": -1}} | page.limit | 0 to 10000",
      "process-instances | {\"page\": {\"from\": 9990, \"limit\": 20}} | page.from | 10000",
      "process-instances | {\"page\": {\"from\": 1, \"after\": \"x\"}} | page | not several",
      "process-instances | {\"page\": {\"after\": \"not-a-cursor\"}} | page.after | not a cursor",
      "process-instances | {\"page\": {\"before\": \"WyJ4Il0\"}} | page.before | another sort order",
      "process-instances | {\"page\": {\"size\": 3}} | page.size | unknown",
      "process-instances | {\"query\": {}} | query | unknown part",
      "process-instances | [1, 2] | body | expected a JSON object",
      "process-instances | {\"consistency\": {\"timeout\": \"soon\", \"processInstanceKey\": 1}} | consistency.timeout | duration",
      "process-instances | {\"consistency\": {}} | consistency | processInstanceKey or positions",
      "process-instances | {\"consistency\": {\"positions\": [{\"partitionId\": 0, \"position\": 1}]}} | consistency.positions[0] | partitionId"
    })
    void aBadPartOfTheRequestIsAnsweredWith400NamingIt(String entity, String request, String part, String detail) {
      badRequest(entity, request, part, detail);
    }

    @Test
    void aCursorOfAnotherSortOrderIsRefused() {
      String cursor = search("process-instances", "{\"sort\": [{\"field\": \"processDefinitionId\"}], \"page\": {\"limit\": 1}}")
          .path("page").path("endCursor").asText();

      badRequest("process-instances", "{\"sort\": [{\"field\": \"startDate\"}], \"page\": {\"after\": \"" + cursor + "\"}}",
          "page.after", "another sort order");
    }

    @Test
    void malformedJsonIs400ProblemJson() {
      Answer answer = app.post("/v2/process-instances/search", "{\"filter\": ");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.contentType()).isEqualTo("application/problem+json");
    }

    @Test
    void anUnknownKeyIs404() {
      Answer answer = app.get("/v2/process-instances/424242");

      assertThat(answer.status()).isEqualTo(404);
      assertThat(answer.contentType()).isEqualTo("application/problem+json");
      assertThat(answer.json().path("detail").asText()).contains("424242");
      assertThat(app.get("/v2/process-definitions/424242/xml").status()).isEqualTo(404);
    }

    @Test
    void aKeyThatIsNoNumberIs400() {
      Answer answer = app.get("/v2/jobs/abc");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.json().path("part").asText()).isEqualTo("key");
    }

    @Test
    void anUnknownEntityIs404() {
      assertThat(app.post("/v2/users/search", "{}").status()).isEqualTo(404);
    }

    @Test
    void theAppIsReadOnly() {
      Answer delete = app.send(HttpRequest.newBuilder(URI.create(app.baseUrl() + "/v2/process-instances/1001")).DELETE());
      Answer put = app.send(HttpRequest.newBuilder(URI.create(app.baseUrl() + "/v2/process-instances/1001"))
          .PUT(HttpRequest.BodyPublishers.ofString("{}")));
      Answer postElsewhere = app.post("/v2/process-instances/1001", "{}");

      assertThat(List.of(delete.status(), put.status(), postElsewhere.status())).containsOnly(403);
    }
  }
}
