package dev.flowpipe.schema.query;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A search on one or more indices: criteria (all must hold), sort keys, and a page given either by an offset
 * ({@code from}) or by the sort values of the last document seen ({@code searchAfter}, a cursor that stays stable
 * while documents are added). The total is counted exactly unless {@code totalCap} says up to how many: a capped
 * count lets the store stop counting there and skip documents that cannot reach the page of a numeric or date sort.
 *
 * @param indices the indices to search; missing ones count as empty
 * @param criteria conditions that must all hold
 * @param sort sort keys, most significant first; with {@code searchAfter} they must end in a unique field
 * @param from documents to skip; 0 when {@code searchAfter} is given
 * @param size documents to return, 0 for only the total
 * @param searchAfter sort values of the document to continue after (one per sort key), or empty
 * @param excludedFields stored fields left out of the returned documents (e.g. large texts)
 * @param timeout how long the store may run the search (the body's {@code timeout}); one that runs longer fails with
 *     {@link dev.flowpipe.schema.store.SearchTimedOutException}, never with a part of the hits
 * @param totalCap count matches up to this many ({@link SearchHits#totalIsLowerBound()} when there are more), or
 *     {@link #EXACT_TOTAL} to count every one
 */
public record SearchQuery(
    List<String> indices,
    List<Criterion> criteria,
    List<SortField> sort,
    int from,
    int size,
    List<Object> searchAfter,
    List<String> excludedFields,
    Duration timeout,
    int totalCap) {

  /** The {@code totalCap} that counts every match. */
  public static final int EXACT_TOTAL = 0;

  /** The store-side time budget of a search that names none. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /** A search with an exact total. */
  public SearchQuery(List<String> indices, List<Criterion> criteria, List<SortField> sort, int from, int size,
      List<Object> searchAfter, List<String> excludedFields, Duration timeout) {
    this(indices, criteria, sort, from, size, searchAfter, excludedFields, timeout, EXACT_TOTAL);
  }

  /** A search with the {@link #DEFAULT_TIMEOUT} and an exact total. */
  public SearchQuery(List<String> indices, List<Criterion> criteria, List<SortField> sort, int from, int size,
      List<Object> searchAfter, List<String> excludedFields) {
    this(indices, criteria, sort, from, size, searchAfter, excludedFields, DEFAULT_TIMEOUT, EXACT_TOTAL);
  }

  public SearchQuery {
    timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    indices = List.copyOf(Objects.requireNonNull(indices, "indices"));
    if (indices.isEmpty()) {
      throw new IllegalArgumentException("a search needs at least one index");
    }
    criteria = List.copyOf(criteria == null ? List.of() : criteria);
    sort = List.copyOf(sort == null ? List.of() : sort);
    // the cursor may hold nulls (a document without the sorted field): no List.copyOf
    searchAfter = searchAfter == null ? List.of() : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(searchAfter));
    excludedFields = List.copyOf(excludedFields == null ? List.of() : excludedFields);
    if (totalCap < 0) {
      throw new IllegalArgumentException("totalCap must be >= 0 (0: exact), was " + totalCap);
    }
    if (from < 0 || size < 0) {
      throw new IllegalArgumentException("from and size must be >= 0, were " + from + " and " + size);
    }
    if (!searchAfter.isEmpty() && from != 0) {
      throw new IllegalArgumentException("a search continues either after sort values or from an offset, not both");
    }
    if (!searchAfter.isEmpty() && searchAfter.size() != sort.size()) {
      throw new IllegalArgumentException(
          "searchAfter needs one value per sort key: " + sort.size() + " keys, " + searchAfter.size() + " values");
    }
  }

  /** This search with its total counted up to {@code cap} ({@link #EXACT_TOTAL}: every match). */
  public SearchQuery withTotalCap(int cap) {
    return new SearchQuery(indices, criteria, sort, from, size, searchAfter, excludedFields, timeout, cap);
  }

  /** All documents of one index matching the criteria, first page of {@code size} in the given order. */
  public static SearchQuery of(String index, List<Criterion> criteria, List<SortField> sort, int size) {
    return new SearchQuery(List.of(index), criteria, sort, 0, size, List.of(), List.of());
  }
}
