package dev.flowpipe.webapp.api;

import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.SearchStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Every hit of a search over a small set (definitions, DRDs, one batch's items), read page after page by
 * {@code search_after} in key order, never cut at a fixed size; a caller that must bound it names a maximum.
 */
final class AllHits {

  private static final int PAGE = 1_000;

  private AllHits() {}

  /**
   * The hits in {@code sort} order (which must be unique per document), or the first ones past {@code maximum}: a
   * caller sees that it got more than it allows.
   */
  static List<SearchHits.Hit> read(SearchStore store, String index, List<Criterion> criteria, List<SortField> sort,
      List<String> leftOut, Duration timeout, int maximum) {
    List<SearchHits.Hit> hits = new ArrayList<>();
    List<Object> after = null;
    while (true) {
      SearchHits page = store.search(new SearchQuery(List.of(index), criteria, sort, 0, PAGE, after, leftOut, timeout));
      hits.addAll(page.hits());
      if (page.hits().size() < PAGE || hits.size() > maximum) {
        return hits;
      }
      after = page.hits().getLast().sortValues();
    }
  }
}
