package dev.flowpipe.webapp.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.webapp.config.WebappProperties;
import java.time.Duration;
import org.springframework.util.unit.DataSize;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The parser's reading of what Camunda's 8.8 Java client sends: every advanced filter property with {@code $in} and
 * {@code $notIn} lists, empty unless the caller filled them, and every process-instance filter with empty
 * {@code tags}, {@code variables} and {@code $or}. Camunda's REST API applies each of these only when non-empty.
 */
class SearchRequestParserTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final SearchRequestParser parser = new SearchRequestParser(
      new WebappProperties.Search(100, 1000, Duration.ofSeconds(10), 10_000),
      new WebappProperties.Consistency(Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMillis(20), 1000),
      new WebappProperties.Limits(DataSize.ofMegabytes(4), 1000, 50, 100, 10, 64, 4096));

  private List<Criterion> criteria(Entity entity, String filter) {
    return parser.parse(entity, json("{\"filter\": " + filter + "}")).criteria();
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new IllegalArgumentException(text, e);
    }
  }

  @Nested
  class EmptyListsOfOperators {

    @Test
    void anEqualityWithTheClientsEmptyInAndNotInIsJustTheEquality() {
      List<Criterion> criteria = criteria(Entity.PROCESS_DEFINITIONS,
          "{\"processDefinitionId\": {\"$eq\": \"order\", \"$in\": [], \"$notIn\": []}}");

      assertThat(criteria).containsExactly(new Criterion.Equals("bpmnProcessId", "order"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
      "{\"state\": {\"$in\": []}}",
      "{\"state\": {\"$notIn\": []}}",
      "{\"processInstanceKey\": {\"$in\": [], \"$notIn\": []}}",
      "{\"startDate\": {\"$in\": [], \"$notIn\": []}}"
    })
    void aConditionOfEmptyListsOnlyConstrainsNothing(String filter) {
      assertThat(criteria(Entity.PROCESS_INSTANCES, filter)).isEmpty();
    }

    @Test
    void aNonEmptyInBesideAnEmptyNotInIsKept() {
      List<Criterion> criteria = criteria(Entity.PROCESS_INSTANCES,
          "{\"processInstanceKey\": {\"$in\": [\"1\", \"2\"], \"$notIn\": []}}");

      assertThat(criteria).containsExactly(new Criterion.OneOf("key", List.of(1L, 2L)));
    }

    @Test
    void aNonEmptyNotInBesideAnEmptyInIsKept() {
      List<Criterion> criteria = criteria(Entity.JOBS, "{\"type\": {\"$in\": [], \"$notIn\": [\"mail\"]}}");

      assertThat(criteria).containsExactly(new Criterion.Not(new Criterion.Equals("type", "mail")));
    }

    @Test
    void anInThatIsNoListIsStillRefusedNamingIt() {
      assertThatThrownBy(() -> criteria(Entity.PROCESS_INSTANCES, "{\"state\": {\"$in\": \"ACTIVE\"}}"))
          .isInstanceOfSatisfying(BadRequestException.class,
              e -> assertThat(e.part()).isEqualTo("filter.state.$in"))
          .hasMessageContaining("expected a non-empty array of values, was \"ACTIVE\"");
    }

    @Test
    void anEmptyListOfAnotherOperatorIsStillRefused() {
      assertThatThrownBy(() -> criteria(Entity.PROCESS_INSTANCES, "{\"processInstanceKey\": {\"$eq\": []}}"))
          .isInstanceOfSatisfying(BadRequestException.class,
              e -> assertThat(e.part()).isEqualTo("filter.processInstanceKey.$eq"));
    }
  }

  @Nested
  class EmptyListsOfTheProcessInstanceFilter {

    @Test
    void theClientsEmptyTagsVariablesAndOrConstrainNothing() {
      List<Criterion> criteria = criteria(Entity.PROCESS_INSTANCES,
          "{\"state\": {\"$eq\": \"ACTIVE\", \"$in\": [], \"$notIn\": []}, \"tags\": [], \"variables\": [],"
              + " \"$or\": []}");

      assertThat(criteria).containsExactly(new Criterion.Equals("state", "ACTIVE"));
    }

    @Test
    void emptyTagsAndVariablesInsideAnOrItemConstrainNothing() {
      List<Criterion> criteria = criteria(Entity.PROCESS_INSTANCES,
          "{\"$or\": [{\"processDefinitionId\": {\"$eq\": \"a\", \"$in\": []}, \"tags\": [], \"variables\": []},"
              + " {\"processDefinitionId\": \"b\"}]}");

      assertThat(criteria).containsExactly(new Criterion.AnyOf(List.of(
          List.of(new Criterion.Equals("bpmnProcessId", "a")), List.of(new Criterion.Equals("bpmnProcessId", "b")))));
    }

    @Test
    void nonEmptyTagsMatchNoInstanceSinceZeebe86HasNone() {
      assertThat(criteria(Entity.PROCESS_INSTANCES, "{\"tags\": [\"vip\"]}"))
          .containsExactly(new Criterion.Not(new Criterion.Exists("key")));
    }

    @Test
    void variablesAreTermsOfTheInstancesVariableEntries() {
      assertThat(criteria(Entity.PROCESS_INSTANCES,
          "{\"variables\": [{\"name\": \"orderId\", \"value\": \"\\\"o-1\\\"\"},"
              + " {\"name\": \"a=b\", \"value\": {\"$like\": \"1*\"}}]}"))
          .containsExactly(new Criterion.Equals("variableEntries", "orderId=\"o-1\""),
              new Criterion.Like("variableEntries", "a\\\\=b=1*"));
    }

    @Test
    void elementIdStateAndIncidentAreOneTermOfOneElementInstance() {
      assertThat(criteria(Entity.PROCESS_INSTANCES,
          "{\"elementId\": \"task\", \"elementInstanceState\": \"ACTIVE\", \"hasElementInstanceIncident\": true}"))
          .containsExactly(new Criterion.Equals("elementInstanceEntries", "id=task|state=ACTIVE|inc=true"));
    }

    @Test
    void anEmptyListForAFieldOfAnotherEntityIsStillAnUnknownField() {
      assertThatThrownBy(() -> criteria(Entity.JOBS, "{\"tags\": []}"))
          .isInstanceOfSatisfying(BadRequestException.class, e -> assertThat(e.part()).isEqualTo("filter.tags"))
          .hasMessageContaining("unknown field");
    }

    @Test
    void anOrThatIsNoListIsStillRefusedNamingIt() {
      assertThatThrownBy(() -> criteria(Entity.PROCESS_INSTANCES, "{\"$or\": {}}"))
          .isInstanceOfSatisfying(BadRequestException.class, e -> assertThat(e.part()).isEqualTo("filter.$or"))
          .hasMessageContaining("non-empty array of filter objects");
    }
  }
}
