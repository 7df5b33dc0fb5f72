package dev.flowpipe.schema.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.store.AnswerClass;
import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.QueryRejectedException;
import dev.flowpipe.schema.store.RequestTooLargeException;
import dev.flowpipe.schema.store.StoreProduct;
import dev.flowpipe.schema.store.StoreRefusedException;
import dev.flowpipe.schema.store.StoreUnavailableException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * How the one adapter reads the store's answers, for bulk items and whole requests alike, with a fake transport that
 * answers as OpenSearch and Elasticsearch do (the real stores answer in {@code SearchStoreContractTest}).
 */
class JsonStoreAnswersTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Answers with the answers it was given, in order; an answer of status 0 stands for no answer at all. */
  private static final class FakeTransport implements StoreTransport {
    final Deque<StoreAnswer> answers = new ArrayDeque<>();
    final List<StoreRequest> requests = new ArrayList<>();

    FakeTransport answer(int status, String body) {
      answers.add(new StoreAnswer(status, Map.of(), body.getBytes(StandardCharsets.UTF_8)));
      return this;
    }

    @Override
    public StoreAnswer send(StoreRequest request) {
      requests.add(request);
      StoreAnswer answer = answers.remove();
      if (answer.status() == 0) {
        throw new StoreUnavailableException("search store at http://fake is unreachable: connection refused");
      }
      return answer;
    }

    @Override
    public void close() {}
  }

  private static String error(String type, int status) {
    return "{\"error\": {\"root_cause\": [{\"type\": \"" + type + "\", \"reason\": \"r\"}], \"type\": \"" + type
        + "\", \"reason\": \"r\"}, \"status\": " + status + "}";
  }

  private static String item(int status, String errorType) {
    String error = errorType == null ? "" : ", \"error\": {\"type\": \"" + errorType + "\", \"reason\": \"why\"}";
    return "{\"index\": {\"_index\": \"i\", \"_id\": \"x\", \"status\": " + status + error + "}}";
  }

  private static final List<DocumentWrite> FOUR = List.of(
      new DocumentWrite("i", "written", 10, Map.of("a", 1)),
      new DocumentWrite("i", "replayed", 11, Map.of("a", 2)),
      new DocumentWrite("i", "bad", 12, Map.of("a", 3)),
      new DocumentWrite("i", "rejected", 13, Map.of("a", 4)));

  @Nested
  class GivenABulk {

    @Test
    void whenTheStoreAnswersPerItemThenEachItemIsSortedByItsClass() {
      FakeTransport transport = new FakeTransport().answer(200, "{\"errors\": true, \"items\": ["
          + item(201, null) + "," + item(409, "version_conflict_engine_exception") + ","
          + item(400, "strict_dynamic_mapping_exception") + "," + item(429, "es_rejected_execution_exception") + "]}");

      BulkOutcome outcome = new JsonStore(transport, StoreProduct.ELASTICSEARCH, "9.5.2").bulk(FOUR);

      assertThat(outcome.written()).extracting(DocumentWrite::id).containsExactly("written");
      assertThat(outcome.superseded()).extracting(DocumentWrite::id).containsExactly("replayed");
      assertThat(outcome.failures()).extracting(failure -> failure.write().id(), BulkOutcome.ItemFailure::kind,
              BulkOutcome.ItemFailure::retryable)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("bad", AnswerClass.MALFORMED, false),
              org.assertj.core.groups.Tuple.tuple("rejected", AnswerClass.RETRYABLE, true));
      assertThat(outcome.failures().getFirst().reason()).isEqualTo("strict_dynamic_mapping_exception: why");
    }

    @Test
    void whenItIsSentThenEachDocumentCarriesItsPositionAsAnExternalVersion() throws Exception {
      FakeTransport transport = new FakeTransport().answer(200, "{\"errors\": false, \"items\": [" + item(201, null) + "]}");

      new JsonStore(transport, StoreProduct.OPENSEARCH, "3.8.0").bulk(FOUR.subList(0, 1), true);

      StoreRequest request = transport.requests.getFirst();
      String[] lines = new String(request.body(), StandardCharsets.UTF_8).split("\n");
      JsonNode action = JSON.readTree(lines[0]).path("index");
      assertThat(request.path()).isEqualTo("/_bulk");
      assertThat(request.parameters()).containsEntry("refresh", "true");
      assertThat(request.contentType()).isEqualTo(StoreRequest.NDJSON);
      assertThat(action.path("_id").asText()).isEqualTo("written");
      assertThat(action.path("version").asLong()).isEqualTo(10);
      assertThat(action.path("version_type").asText()).isEqualTo("external");
      assertThat(JSON.readTree(lines[1]).path("position").asLong()).isEqualTo(10);
    }

    @Test
    void whenTheWholeBulkIsRefusedThenItsClassDecidesTheException() {
      assertThatThrownBy(() -> bulkAnswered(413, "")).isInstanceOf(RequestTooLargeException.class);
      assertThatThrownBy(() -> bulkAnswered(429, error("rejected_execution_exception", 429)))
          .isInstanceOf(StoreUnavailableException.class);
      assertThatThrownBy(() -> bulkAnswered(503, error("cluster_manager_not_discovered_exception", 503)))
          .isInstanceOf(StoreUnavailableException.class);
      assertThatThrownBy(() -> bulkAnswered(401, "Unauthorized"))
          .isExactlyInstanceOf(StoreRefusedException.class).hasMessageContaining("HTTP 401");
      assertThatThrownBy(() -> bulkAnswered(400, error("illegal_argument_exception", 400)))
          .isExactlyInstanceOf(StoreRefusedException.class).hasMessageContaining("bulk of 4");
    }

    @Test
    void whenNoAnswerComesThenTheStoreIsUnavailableNamingTheRequest() {
      assertThatThrownBy(() -> bulkAnswered(0, ""))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("bulk of 4").hasMessageContaining("http://fake");
    }

    private BulkOutcome bulkAnswered(int status, String body) {
      return new JsonStore(new FakeTransport().answer(status, body), StoreProduct.OPENSEARCH, "3.8.0").bulk(FOUR);
    }
  }

  @Nested
  class GivenOtherRequests {

    private JsonStore storeAnswering(int status, String body) {
      return new JsonStore(new FakeTransport().answer(status, body), StoreProduct.ELASTICSEARCH, "9.5.2");
    }

    @Test
    void anIndexThatExistsAlreadyIsNotCreatedAgainAndNoError() {
      assertThat(storeAnswering(400, error("resource_already_exists_exception", 400)).createIndex("i", "{}")).isFalse();
      assertThat(storeAnswering(200, "{\"acknowledged\": true}").createIndex("i", "{}")).isTrue();
      assertThatThrownBy(() -> storeAnswering(403, error("security_exception", 403)).createIndex("i", "{}"))
          .isExactlyInstanceOf(StoreRefusedException.class).hasMessageContaining("creating index i");
    }

    @Test
    void aSearchTheStoreRefusesIsRejectedAndOneItCannotServeNowIsUnavailable() {
      SearchQuery query = SearchQuery.of("i", List.of(), List.of(), 10);

      assertThatThrownBy(() -> storeAnswering(400, error("search_phase_execution_exception", 400)).search(query))
          .isInstanceOf(QueryRejectedException.class);
      assertThatThrownBy(() -> storeAnswering(429, error("es_rejected_execution_exception", 429)).search(query))
          .isInstanceOf(StoreUnavailableException.class);
      assertThatThrownBy(() -> storeAnswering(413, "").search(query)).isInstanceOf(RequestTooLargeException.class);
    }

    @Test
    void aMissingDocumentIsAbsentAndAStoreInTroubleIsUnavailable() {
      assertThat(storeAnswering(404, "{\"_index\": \"i\", \"_id\": \"1\", \"found\": false}").get("i", "1")).isEmpty();
      assertThatThrownBy(() -> storeAnswering(503, "").get("i", "1")).isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void aUserWhoMayNotListTasksGetsNoAnswerRatherThanAnError() {
      assertThat(storeAnswering(403, error("security_exception", 403)).runningTasks("indices:data/write/bulk")).isEmpty();
    }

    @Test
    void administrationSortsItsAnswersAlike() {
      assertThatThrownBy(() -> storeAnswering(429, "").updateAliases("{\"actions\": []}"))
          .isInstanceOf(StoreUnavailableException.class);
      assertThatThrownBy(() -> storeAnswering(400, error("illegal_argument_exception", 400)).updateAliases("{}"))
          .isExactlyInstanceOf(StoreRefusedException.class);
    }
  }
}
