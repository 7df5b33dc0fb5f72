package dev.flowpipe.schema.query;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Counts of the documents matching some criteria, per value of one field, and within each value per named condition:
 * a terms aggregation with a filters aggregation under it. One request answers, say, "per element id: how many active,
 * how many completed".
 *
 * @param indices the indices to count in; missing ones count as empty
 * @param criteria conditions every counted document meets
 * @param field the field whose values group the counts (keyword, number or boolean)
 * @param maxValues at most this many values are counted (in value order): the bound on the answer's size
 * @param conditions named conditions (each a list of criteria that must all hold) counted within each value
 * @param timeout how long the store may run the count; one that runs longer fails with
 *     {@link dev.flowpipe.schema.store.SearchTimedOutException}
 */
public record ValueCountQuery(
    List<String> indices, List<Criterion> criteria, String field, int maxValues, Map<String, List<Criterion>> conditions,
    Duration timeout) {

  /** A count with {@link SearchQuery#DEFAULT_TIMEOUT}. */
  public ValueCountQuery(
      List<String> indices, List<Criterion> criteria, String field, int maxValues, Map<String, List<Criterion>> conditions) {
    this(indices, criteria, field, maxValues, conditions, SearchQuery.DEFAULT_TIMEOUT);
  }

  public ValueCountQuery {
    timeout = timeout == null ? SearchQuery.DEFAULT_TIMEOUT : timeout;
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    indices = List.copyOf(Objects.requireNonNull(indices, "indices"));
    if (indices.isEmpty()) {
      throw new IllegalArgumentException("a count needs at least one index");
    }
    criteria = List.copyOf(criteria == null ? List.of() : criteria);
    Objects.requireNonNull(field, "field");
    if (maxValues < 1) {
      throw new IllegalArgumentException("maxValues must be >= 1, was " + maxValues);
    }
    Map<String, List<Criterion>> copy = new LinkedHashMap<>();
    (conditions == null ? Map.<String, List<Criterion>>of() : conditions)
        .forEach((name, all) -> copy.put(Objects.requireNonNull(name, "condition name"), List.copyOf(all)));
    conditions = java.util.Collections.unmodifiableMap(copy);
  }

  /**
   * What was counted for one value of the field.
   *
   * @param value the field's value, as text (numbers and booleans as the store writes them)
   * @param total the documents with this value that meet the query's criteria
   * @param conditions per named condition, how many of them also meet it (every name of the query is there)
   */
  public record ValueCount(String value, long total, Map<String, Long> conditions) {
    public ValueCount {
      conditions = Map.copyOf(conditions);
    }
  }
}
