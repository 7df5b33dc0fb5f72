package dev.flowpipe.schema.query;

import java.util.List;
import java.util.Map;

/**
 * What a {@link SearchQuery} found.
 *
 * @param total all matching documents, not only the returned page; with a capped count (a {@link SearchQuery} with a
 *     {@code totalCap}) at most the cap
 * @param hits the page, in sort order
 * @param totalIsLowerBound whether there are more matches than {@code total}: the count stopped at its cap
 */
public record SearchHits(long total, List<Hit> hits, boolean totalIsLowerBound) {

  /** Hits with an exact total. */
  public SearchHits(long total, List<Hit> hits) {
    this(total, hits, false);
  }

  public SearchHits {
    hits = List.copyOf(hits);
  }

  /**
   * One found document.
   *
   * @param index the index it is stored in
   * @param id its id
   * @param source its stored fields (less the excluded ones)
   * @param sortValues its values for the query's sort keys: the cursor to continue after it
   */
  public record Hit(String index, String id, Map<String, Object> source, List<Object> sortValues) {}
}
