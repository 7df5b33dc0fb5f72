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
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Decision definitions, DRDs and decision instances through the v2 API, on a real OpenSearch holding documents as the
 * writer's handlers write them: DRD 500 ("dish-drd", with its XML) holds decisions 501 ("season") and 502 ("dish");
 * DRD 600 and its decision 601 were deleted. Evaluation 7001 of instance 1001 evaluated both decisions
 * ({@code 7001-1}, {@code 7001-2}); evaluation 7002 of instance 1002 failed at "dish" ({@code 7002-2}).
 */
@ExtendWith(SharedOpenSearch.class)
class DecisionsApiTest {

  private static final String DMN = "<definitions id=\"dish-drd\"><decision id=\"dish\"/></definitions>";
  private static TestWebapp app;

  @BeforeAll
  static void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    new SchemaManager(store, prefix, "1s").ensureSchema();
    String requirements = ReadModelIndex.DECISION_REQUIREMENTS.indexName(prefix);
    String definitions = ReadModelIndex.DECISION_DEFINITION.indexName(prefix);
    String instances = ReadModelIndex.DECISION_INSTANCE.indexName(prefix);
    List<DocumentWrite> writes = new ArrayList<>();
    writes.add(ReadModelFixture.doc(requirements, 500, Map.of("decisionRequirementsId", "dish-drd",
        "name", "Dish for the season", "version", 1, "resourceName", "dish.dmn", "dmnXml", DMN,
        "tenantId", "<default>")));
    writes.add(ReadModelFixture.doc(requirements, 600, Map.of("decisionRequirementsId", "old-drd", "name", "Old",
        "version", 1, "resourceName", "old.dmn", "dmnXml", "<definitions/>", "tenantId", "<default>",
        "deleted", true)));
    writes.add(definition(definitions, 501, "season", "Season", 500, false));
    writes.add(definition(definitions, 502, "dish", "Dish", 500, false));
    writes.add(definition(definitions, 601, "old", "Old", 600, true));
    writes.add(instance(instances, 7001, 1, 1001, 501, "season", "LITERAL_EXPRESSION", "EVALUATED", 1));
    writes.add(instance(instances, 7001, 2, 1001, 502, "dish", "DECISION_TABLE", "EVALUATED", 1));
    writes.add(instance(instances, 7002, 1, 1002, 501, "season", "LITERAL_EXPRESSION", "EVALUATED", 2));
    writes.add(instance(instances, 7002, 2, 1002, 502, "dish", "DECISION_TABLE", "FAILED", 2));
    store.bulk(writes, true);
    app = TestWebapp.start(
        Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix));
  }

  private static DocumentWrite definition(String index, long key, String id, String name, long drd, boolean deleted) {
    Map<String, Object> fields = new HashMap<>(Map.of("decisionId", id, "name", name, "version", 1,
        "decisionRequirementsId", drd == 500 ? "dish-drd" : "old-drd", "decisionRequirementsKey", drd,
        "tenantId", "<default>"));
    if (deleted) {
      fields.put("deleted", true);
    }
    return ReadModelFixture.doc(index, key, fields);
  }

  private static DocumentWrite instance(String index, long evaluation, int n, long processInstance, long decision,
      String decisionId, String type, String state, int hour) {
    Map<String, Object> document = new HashMap<>();
    String id = evaluation + "-" + n;
    document.put("decisionInstanceId", id);
    document.put("evaluationKey", evaluation);
    document.put("state", state);
    document.put("evaluationDate", ReadModelFixture.date(hour));
    if (state.equals("FAILED")) {
      document.put("evaluationFailure", "multiple rules matched: UNIQUE refuses");
    }
    document.put("decisionKey", decision);
    document.put("decisionId", decisionId);
    document.put("decisionName", decisionId.equals("dish") ? "Dish" : "Season");
    document.put("decisionVersion", 1);
    document.put("decisionType", type);
    document.put("decisionRequirementsKey", 500);
    document.put("decisionRequirementsId", "dish-drd");
    // the decision each evaluation was asked for: dish, which requires season
    document.put("rootDecisionKey", 502);
    document.put("result", "\"Winter\"");
    document.put("evaluatedInputs", List.of(Map.of("inputId", "input-season", "inputName", "Season",
        "inputValue", "\"Winter\"")));
    document.put("matchedRules", List.of(Map.of("ruleId", "rule-winter", "ruleIndex", 1, "evaluatedOutputs",
        List.of(Map.of("outputId", "output-dish", "outputName", "Dish", "outputValue", "\"Roastbeef\"")))));
    document.put("processDefinitionKey", 900);
    document.put("processInstanceKey", processInstance);
    document.put("bpmnProcessId", "decide");
    document.put("elementId", "choose");
    document.put("elementInstanceKey", processInstance + 10);
    document.put("tenantId", "<default>");
    document.put("partitionId", 1);
    return new DocumentWrite(index, id, evaluation * 10 + n, document);
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  private static JsonNode ok(Answer answer) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json();
  }

  @Nested
  class TheirDrdAndVersions {

    @Test
    void aDecisionDefinitionAnswersItsDrdsNameAndVersionReadFromTheDrd() {
      JsonNode dish = ok(app.get("/v2/decision-definitions/502"));
      JsonNode found = ok(app.post("/v2/decision-definitions/search", "{}"));

      assertThat(dish.path("decisionRequirementsName").asText()).isEqualTo("Dish for the season");
      assertThat(dish.path("decisionRequirementsVersion").asInt()).isEqualTo(1);
      assertThat(found.path("items")).allSatisfy(item ->
          assertThat(item.path("decisionRequirementsName").asText()).isEqualTo("Dish for the season"));
    }

    @Test
    void theDrdsNameAndVersionFilterAsTheDrdsOwnFieldsDo() {
      JsonNode byName = ok(app.post("/v2/decision-definitions/search",
          "{\"filter\": {\"decisionRequirementsName\": {\"$like\": \"Dish*\"}, \"decisionRequirementsVersion\": 1}}"));
      JsonNode none = ok(app.post("/v2/decision-definitions/search",
          "{\"filter\": {\"decisionRequirementsVersion\": {\"$gt\": 1}}}"));

      assertThat(TestWebapp.values(byName, "decisionDefinitionKey")).containsExactlyInAnyOrder("501", "502");
      assertThat(none.path("items")).isEmpty();
    }

    @Test
    void aBadDrdConditionIsNamedAsTheDecisionDefinitionsField() {
      Answer answer = app.post("/v2/decision-definitions/search",
          "{\"filter\": {\"decisionRequirementsVersion\": \"one\"}}");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.json().path("part").asText()).isEqualTo("filter.decisionRequirementsVersion");
      assertThat(answer.json().path("detail").asText()).contains("\"one\"");
    }

    @Test
    void isLatestVersionTakesTheHighestVersionOfEachDecisionThatIsNotDeleted() {
      JsonNode latest = ok(app.post("/v2/decision-definitions/search", "{\"filter\": {\"isLatestVersion\": true}}"));
      JsonNode older = ok(app.post("/v2/decision-definitions/search", "{\"filter\": {\"isLatestVersion\": false}}"));

      assertThat(TestWebapp.values(latest, "decisionDefinitionKey")).containsExactlyInAnyOrder("501", "502");
      assertThat(older.path("items")).isEmpty();
    }

    @Test
    void decisionInstancesAnswerAndFilterTheirRootDecisionAndDrd() {
      JsonNode byRoot = ok(app.post("/v2/decision-instances/search",
          "{\"filter\": {\"rootDecisionDefinitionKey\": \"502\", \"decisionRequirementsKey\": {\"$in\": [\"500\"]}}}"));
      JsonNode otherDrd = ok(app.post("/v2/decision-instances/search", "{\"filter\": {\"decisionRequirementsKey\": \"600\"}}"));

      assertThat(TestWebapp.values(byRoot, "decisionEvaluationInstanceKey"))
          .containsExactlyInAnyOrder("7001-1", "7001-2", "7002-1", "7002-2");
      assertThat(TestWebapp.values(byRoot, "rootDecisionDefinitionKey")).containsOnly("502");
      assertThat(otherDrd.path("items")).isEmpty();
    }
  }

  @Nested
  class DecisionInstances {

    @Test
    void areFilteredByStateAndSortedByTheirKeyInTheV2Names() {
      JsonNode answer = ok(app.post("/v2/decision-instances/search",
          "{\"filter\": {\"state\": {\"$in\": [\"FAILED\"], \"$notIn\": []}}}"));

      assertThat(TestWebapp.values(answer, "decisionEvaluationInstanceKey")).containsExactly("7002-2");
      JsonNode failed = answer.path("items").get(0);
      assertThat(failed.path("evaluationFailure").asText()).isEqualTo("multiple rules matched: UNIQUE refuses");
      assertThat(failed.path("decisionEvaluationKey").asText()).isEqualTo("7002");
      assertThat(failed.path("decisionDefinitionKey").asText()).isEqualTo("502");
      assertThat(failed.path("decisionDefinitionType").asText()).isEqualTo("DECISION_TABLE");
      assertThat(failed.path("processInstanceKey").asText()).isEqualTo("1002");
      assertThat(failed.path("elementInstanceKey").asText()).isEqualTo("1012");
    }

    @Test
    void aSearchLeavesOutTheInputsAndRulesAsTheV2SearchResultDoes() {
      JsonNode answer = ok(app.post("/v2/decision-instances/search",
          "{\"filter\": {\"processInstanceKey\": \"1001\"}, \"sort\": [{\"field\": \"decisionDefinitionId\"}]}"));

      assertThat(TestWebapp.values(answer, "decisionEvaluationInstanceKey")).containsExactly("7001-2", "7001-1");
      assertThat(answer.path("items").get(0).has("evaluatedInputs")).isFalse();
      assertThat(answer.path("items").get(0).has("matchedRules")).isFalse();
      assertThat(answer.path("items").get(0).path("result").asText()).isEqualTo("\"Winter\"");
    }

    @Test
    void aGetByItsEvaluationInstanceKeyAnswersInputsAndMatchedRules() {
      JsonNode instance = ok(app.get("/v2/decision-instances/7001-2"));

      assertThat(instance.path("decisionDefinitionName").asText()).isEqualTo("Dish");
      assertThat(instance.path("evaluatedInputs")).hasSize(1);
      JsonNode input = instance.path("evaluatedInputs").get(0);
      assertThat(input.path("inputId").asText()).isEqualTo("input-season");
      assertThat(input.path("inputName").asText()).isEqualTo("Season");
      assertThat(input.path("inputValue").asText()).isEqualTo("\"Winter\"");
      assertThat(instance.path("matchedRules").get(0).path("ruleIndex").asInt()).isEqualTo(1);
      assertThat(instance.path("matchedRules").get(0).path("evaluatedOutputs").get(0).path("outputValue").asText())
          .isEqualTo("\"Roastbeef\"");
    }

    @Test
    void aKeyNotOfTheEvaluationInstanceFormIsA400NamingIt() {
      Answer answer = app.get("/v2/decision-instances/7001");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.contentType()).startsWith("application/problem+json");
      assertThat(answer.json().path("detail").asText()).contains("'7001'");
    }

    @Test
    void anUnknownOneIsA404() {
      assertThat(app.get("/v2/decision-instances/7001-9").status()).isEqualTo(404);
    }

    @Test
    void theInputsCannotBeFilteredOn() {
      Answer answer = app.post("/v2/decision-instances/search", "{\"filter\": {\"evaluatedInputs\": \"x\"}}");

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.json().path("part").asText()).isEqualTo("filter.evaluatedInputs");
    }
  }

  @Nested
  class Definitions {

    @Test
    void aDeletedDecisionIsNeitherFoundNorGot() {
      JsonNode answer = ok(app.post("/v2/decision-definitions/search", "{}"));

      assertThat(TestWebapp.values(answer, "decisionDefinitionId")).containsExactlyInAnyOrder("season", "dish");
      assertThat(app.get("/v2/decision-definitions/601").status()).isEqualTo(404);
      assertThat(app.get("/v2/decision-requirements/600").status()).isEqualTo(404);
      assertThat(TestWebapp.values(ok(app.post("/v2/decision-requirements/search", "{}")), "decisionRequirementsKey"))
          .containsExactly("500");
    }

    @Test
    void aDefinitionIsFilteredByItsDrdAndNamesIt() {
      JsonNode answer = ok(app.post("/v2/decision-definitions/search",
          "{\"filter\": {\"decisionRequirementsKey\": \"500\", \"name\": {\"$like\": \"D*\"}}}"));

      assertThat(TestWebapp.values(answer, "decisionDefinitionKey")).containsExactly("502");
      assertThat(answer.path("items").get(0).path("decisionRequirementsId").asText()).isEqualTo("dish-drd");
    }

    @Test
    void theDrdIsAnsweredWithItsNameButWithoutItsXml() {
      JsonNode drd = ok(app.get("/v2/decision-requirements/500"));

      assertThat(drd.path("decisionRequirementsName").asText()).isEqualTo("Dish for the season");
      assertThat(drd.path("resourceName").asText()).isEqualTo("dish.dmn");
      assertThat(drd.has("dmnXml")).isFalse();
    }

    @Test
    void theXmlOfADefinitionIsItsDrdsAsASandboxedDownload() {
      Answer ofDefinition = app.get("/v2/decision-definitions/502/xml");
      Answer ofDrd = app.get("/v2/decision-requirements/500/xml");

      assertThat(ofDefinition.status()).isEqualTo(200);
      assertThat(ofDefinition.body()).isEqualTo(DMN);
      assertThat(ofDefinition.contentType()).startsWith("text/xml");
      assertThat(ofDefinition.header("Content-Security-Policy")).contains("sandbox");
      assertThat(ofDrd.body()).isEqualTo(DMN);
      // a deleted decision's instances stay, so its DRD stays readable (as a deleted process definition's BPMN)
      Answer ofDeleted = app.get("/v2/decision-definitions/601/xml");
      assertThat(ofDeleted.status()).isEqualTo(200);
      assertThat(ofDeleted.body()).isEqualTo("<definitions/>");
      assertThat(app.get("/v2/decision-definitions/699/xml").status()).isEqualTo(404);
    }
  }
}
