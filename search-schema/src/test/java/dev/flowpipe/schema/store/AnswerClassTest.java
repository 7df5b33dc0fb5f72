package dev.flowpipe.schema.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The sorting of store answers, with the error shapes OpenSearch and Elasticsearch really give (their REST error
 * bodies and bulk item errors, as documented and as seen from their nodes); the adapter's use of it for bulk items and
 * whole requests is in {@code JsonStoreAnswersTest}, the real stores' answers in the contract test.
 */
class AnswerClassTest {

  private static String error(String type, int status) {
    return "{\"error\": {\"root_cause\": [{\"type\": \"" + type + "\", \"reason\": \"r\"}], \"type\": \"" + type
        + "\", \"reason\": \"r\"}, \"status\": " + status + "}";
  }

  @Nested
  class GivenAnAnswerOfSuccess {

    @Test
    void anyTwoHundredIsOk() {
      assertThat(AnswerClass.ofAnswer(200, "{\"acknowledged\": true}")).isEqualTo(AnswerClass.OK);
      assertThat(AnswerClass.of(201, null)).isEqualTo(AnswerClass.OK);
    }
  }

  @Nested
  class GivenAConflict {

    @Test
    void aVersionConflictOfEitherStoreIsAConflict() {
      assertThat(AnswerClass.of(409, "version_conflict_engine_exception")).isEqualTo(AnswerClass.CONFLICT);
      assertThat(AnswerClass.ofAnswer(409, error("version_conflict_engine_exception", 409)))
          .isEqualTo(AnswerClass.CONFLICT);
    }

    @Test
    void anIndexThatExistsIsAConflictThoughTheStatusIsFourHundred() {
      assertThat(AnswerClass.ofAnswer(400, error("resource_already_exists_exception", 400)))
          .isEqualTo(AnswerClass.CONFLICT);
    }

    @Test
    void aConflictIsNotRetryable() {
      assertThat(AnswerClass.CONFLICT.retryable()).isFalse();
    }
  }

  @Nested
  class GivenARequestTooLarge {

    @Test
    void fourHundredThirteenIsTooLargeWithOrWithoutABody() {
      // Elasticsearch's http.max_content_length answers 413 without a body; a proxy may answer with text
      assertThat(AnswerClass.ofAnswer(413, "")).isEqualTo(AnswerClass.TOO_LARGE);
      assertThat(AnswerClass.ofAnswer(413, "<html>Request Entity Too Large</html>")).isEqualTo(AnswerClass.TOO_LARGE);
      assertThat(AnswerClass.TOO_LARGE.retryable()).isFalse();
    }

    @Test
    void aWholeRequestTooLargeIsARequestTooLargeException() {
      assertThat(AnswerClass.failure("bulk of 3", 413, "")).isInstanceOf(RequestTooLargeException.class)
          .hasMessageContaining("bulk of 3");
    }
  }

  @Nested
  class GivenAMalformedRequestOrDocument {

    @Test
    void mappingAndParsingErrorsOfEitherStoreAreMalformed() {
      // OpenSearch: mapper_parsing_exception; Elasticsearch 8+: document_parsing_exception; both: strict mapping
      assertThat(AnswerClass.of(400, "strict_dynamic_mapping_exception")).isEqualTo(AnswerClass.MALFORMED);
      assertThat(AnswerClass.of(400, "mapper_parsing_exception")).isEqualTo(AnswerClass.MALFORMED);
      assertThat(AnswerClass.of(400, "document_parsing_exception")).isEqualTo(AnswerClass.MALFORMED);
      assertThat(AnswerClass.ofAnswer(400, error("search_phase_execution_exception", 400)))
          .isEqualTo(AnswerClass.MALFORMED);
    }

    @Test
    void aMissingIndexIsMalformedNotRetryable() {
      assertThat(AnswerClass.ofAnswer(404, error("index_not_found_exception", 404))).isEqualTo(AnswerClass.MALFORMED);
      assertThat(AnswerClass.MALFORMED.retryable()).isFalse();
    }

    @Test
    void aWholeMalformedRequestIsARefusalNamingWhatAndTheStatus() {
      RuntimeException failure = AnswerClass.failure("put i/1", 400, error("mapper_parsing_exception", 400));

      assertThat(failure).isExactlyInstanceOf(StoreRefusedException.class)
          .satisfies(e -> assertThat(((StoreRefusedException) e).status()).isEqualTo(400))
          .hasMessageContaining("put i/1").hasMessageContaining("HTTP 400").hasMessageContaining("mapper_parsing_exception");
    }
  }

  @Nested
  class GivenARefusal {

    @Test
    void missingCredentialsOrPrivilegesOfEitherStoreAreRefused() {
      // Elasticsearch answers 401 and 403 with a security_exception; OpenSearch's security plugin a 401 in plain text
      assertThat(AnswerClass.ofAnswer(401, error("security_exception", 401))).isEqualTo(AnswerClass.REFUSED);
      assertThat(AnswerClass.ofAnswer(401, "Unauthorized")).isEqualTo(AnswerClass.REFUSED);
      assertThat(AnswerClass.ofAnswer(403, error("security_exception", 403))).isEqualTo(AnswerClass.REFUSED);
      assertThat(AnswerClass.REFUSED.retryable()).isFalse();
    }

    @Test
    void aWholeRefusedRequestIsNotTakenForAStoreThatIsDown() {
      RuntimeException failure = AnswerClass.failure("bulk of 3", 403, error("security_exception", 403));

      assertThat(failure).isExactlyInstanceOf(StoreRefusedException.class)
          .satisfies(e -> assertThat(((StoreRefusedException) e).status()).isEqualTo(403))
          .hasMessageContaining("bulk of 3").hasMessageContaining("HTTP 403").hasMessageContaining("privilege");
    }
  }

  @Nested
  class GivenAStoreInTrouble {

    @Test
    void overloadOfEitherStoreIsRetryable() {
      // Elasticsearch: es_rejected_execution_exception; OpenSearch: rejected_execution_exception; both trip breakers
      assertThat(AnswerClass.of(429, "es_rejected_execution_exception")).isEqualTo(AnswerClass.RETRYABLE);
      assertThat(AnswerClass.of(429, "rejected_execution_exception")).isEqualTo(AnswerClass.RETRYABLE);
      assertThat(AnswerClass.ofAnswer(429, error("circuit_breaking_exception", 429))).isEqualTo(AnswerClass.RETRYABLE);
      assertThat(AnswerClass.RETRYABLE.retryable()).isTrue();
    }

    @Test
    void serverErrorsOfEitherStoreAreRetryable() {
      assertThat(AnswerClass.ofAnswer(503, error("master_not_discovered_exception", 503))).isEqualTo(AnswerClass.RETRYABLE);
      assertThat(AnswerClass.ofAnswer(503, error("cluster_manager_not_discovered_exception", 503)))
          .isEqualTo(AnswerClass.RETRYABLE);
      assertThat(AnswerClass.ofAnswer(500, "")).isEqualTo(AnswerClass.RETRYABLE);
      assertThat(AnswerClass.ofAnswer(502, "<html>Bad Gateway</html>")).isEqualTo(AnswerClass.RETRYABLE);
    }

    @Test
    void noAnswerAtAllIsUnavailableAndRetryable() {
      assertThat(AnswerClass.of(0, null)).isEqualTo(AnswerClass.UNAVAILABLE);
      assertThat(AnswerClass.UNAVAILABLE.retryable()).isTrue();
    }

    @Test
    void aWholeRequestOfAStoreInTroubleIsAStoreUnavailableException() {
      assertThat(AnswerClass.failure("bulk of 3", 429, error("es_rejected_execution_exception", 429)))
          .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("HTTP 429");
      assertThat(AnswerClass.failure("refresh i", 503, "")).isInstanceOf(StoreUnavailableException.class);
    }
  }

  @Nested
  class GivenAnErrorBody {

    @Test
    void theTypeIsReadFromTheErrorObjectOrTheErrorTextAndAbsentOtherwise() {
      assertThat(AnswerClass.errorType(error("index_not_found_exception", 404))).isEqualTo("index_not_found_exception");
      assertThat(AnswerClass.errorType("{\"error\": \"Incorrect HTTP method\", \"status\": 405}"))
          .isEqualTo("Incorrect HTTP method");
      assertThat(AnswerClass.errorType("Unauthorized")).isNull();
      assertThat(AnswerClass.errorType("")).isNull();
      assertThat(AnswerClass.errorType("{\"_index\": \"i\", \"found\": false}")).isNull();
    }

    @Test
    void aBulkItemsRecordedErrorGivesItsType() {
      assertThat(AnswerClass.itemErrorType("strict_dynamic_mapping_exception: mapping set to strict"))
          .isEqualTo("strict_dynamic_mapping_exception");
      assertThat(AnswerClass.itemErrorType(null)).isNull();
    }
  }
}
