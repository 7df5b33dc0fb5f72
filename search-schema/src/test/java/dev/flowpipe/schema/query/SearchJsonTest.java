package dev.flowpipe.schema.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.schema.store.SearchTimedOutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The search body's store-side timeout, and an answer the store cut at it. */
class SearchJsonTest {

  @Test
  void aSearchWithoutATimeoutOfItsOwnCarriesTheDefault() {
    SearchQuery query = SearchQuery.of("i", List.of(), List.of(), 10);

    assertThat(SearchJson.body(query)).contains("\"timeout\":\"" + SearchQuery.DEFAULT_TIMEOUT.toMillis() + "ms\"");
  }

  @Test
  void anAnswerTheStoreStoppedAtTheTimeoutIsAFailureNotAPartOfTheHits() {
    // the shape both engines answer with when the body's timeout ran out: 200, timed_out, the hits found so far
    String cut = """
        {"took": 2001, "timed_out": true, "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
         "hits": {"total": {"value": 3, "relation": "eq"}, "hits": []}}
        """;

    assertThatThrownBy(() -> SearchJson.hits("search [i]", 200, cut)).isInstanceOf(SearchTimedOutException.class)
        .hasMessageContaining("store-side timeout");
  }

  @Test
  void aTimeoutMustBePositive() {
    assertThatThrownBy(() -> new SearchQuery(List.of("i"), List.of(), List.of(), 0, 1, List.of(), List.of(),
        Duration.ZERO)).hasMessageContaining("timeout must be positive");
  }

  @Test
  void aSearchCountsEveryMatchUnlessItsTotalIsCapped() {
    SearchQuery query = SearchQuery.of("i", List.of(), List.of(), 10);

    assertThat(SearchJson.body(query)).contains("\"track_total_hits\":true");
    assertThat(SearchJson.body(query.withTotalCap(10_000))).contains("\"track_total_hits\":10000");
    assertThatThrownBy(() -> query.withTotalCap(-1)).hasMessageContaining("totalCap must be >= 0");
  }

  @Test
  void aTotalTheStoreStoppedCountingIsALowerBound() {
    String capped = """
        {"took": 3, "timed_out": false, "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
         "hits": {"total": {"value": 10000, "relation": "gte"}, "hits": []}}
        """;

    SearchHits hits = SearchJson.hits("search [i]", 200, capped);
    assertThat(hits.total()).isEqualTo(10_000);
    assertThat(hits.totalIsLowerBound()).isTrue();
    assertThat(SearchJson.hits("search [i]", 200, capped.replace("gte", "eq")).totalIsLowerBound()).isFalse();
  }
}
