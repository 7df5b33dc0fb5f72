package dev.flowpipe.schema.query;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Counts of the documents matching some criteria per combination of values of some fields, one page of combinations
 * at a time: a composite aggregation, which the store pages by the last combination's key, so no combination is ever
 * cut off (a terms aggregation of a fixed size drops what is beyond it without saying so). Within each combination:
 * its documents counted, named conditions counted (a filters aggregation), and optionally the stored values of some
 * fields of one document (e.g. the text an error hash stands for). Every count is a document count, exact: there is no
 * distinct count (the store's is a sketch; the 8.9 incident statistics counted 20,005 instances for 20,000 with it, and
 * count instance documents instead). A document with several values of a grouped field is in the group of each value,
 * once.
 *
 * @param indices the indices to count in; missing ones count as empty
 * @param criteria conditions every counted document meets
 * @param groupBy the fields whose values form a group (keyword, number or boolean), in key order
 * @param pageSize groups per page (the store's composite {@code size})
 * @param after the key of the last group of the previous page ({@link GroupCounts#afterKey}); null for the first
 * @param conditions named conditions (each a list of criteria that must all hold) counted within each group
 * @param sampleFields fields whose values one document of each group gives, or empty
 * @param sampleOrder which document of a group gives them: the first in this order (e.g. the highest version, for
 *     the latest definition of a process); empty for any one
 * @param timeout how long the store may run one page
 */
public record GroupCountQuery(
    List<String> indices, List<Criterion> criteria, List<String> groupBy, int pageSize, Map<String, Object> after,
    Map<String, List<Criterion>> conditions, List<String> sampleFields, List<SortField> sampleOrder,
    Duration timeout) {

  public GroupCountQuery {
    indices = List.copyOf(Objects.requireNonNull(indices, "indices"));
    if (indices.isEmpty()) {
      throw new IllegalArgumentException("a count needs at least one index");
    }
    criteria = List.copyOf(criteria == null ? List.of() : criteria);
    groupBy = List.copyOf(Objects.requireNonNull(groupBy, "groupBy"));
    if (groupBy.isEmpty()) {
      throw new IllegalArgumentException("groupBy needs at least one field");
    }
    if (pageSize < 1) {
      throw new IllegalArgumentException("pageSize must be >= 1, was " + pageSize);
    }
    after = after == null ? null : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(after));
    Map<String, List<Criterion>> copy = new LinkedHashMap<>();
    (conditions == null ? Map.<String, List<Criterion>>of() : conditions)
        .forEach((name, all) -> copy.put(Objects.requireNonNull(name, "condition name"), List.copyOf(all)));
    conditions = java.util.Collections.unmodifiableMap(copy);
    sampleFields = List.copyOf(sampleFields == null ? List.of() : sampleFields);
    sampleOrder = List.copyOf(sampleOrder == null ? List.of() : sampleOrder);
    timeout = timeout == null ? SearchQuery.DEFAULT_TIMEOUT : timeout;
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
  }

  /** A query whose sample is any one document of its group. */
  public GroupCountQuery(
      List<String> indices, List<Criterion> criteria, List<String> groupBy, int pageSize, Map<String, Object> after,
      Map<String, List<Criterion>> conditions, List<String> sampleFields, Duration timeout) {
    this(indices, criteria, groupBy, pageSize, after, conditions, sampleFields, List.of(), timeout);
  }

  /** The same query for the page after the group with this key. */
  public GroupCountQuery after(Map<String, Object> key) {
    return new GroupCountQuery(indices, criteria, groupBy, pageSize, key, conditions, sampleFields, sampleOrder,
        timeout);
  }

  /**
   * One page of groups.
   *
   * @param groups the groups, in key order
   * @param afterKey the key to ask the next page after; null when this page was the last
   */
  public record GroupCounts(List<Group> groups, Map<String, Object> afterKey) {
    public GroupCounts {
      groups = List.copyOf(groups);
    }
  }

  /**
   * What was counted for one combination of values.
   *
   * @param key the combination: per field of {@code groupBy}, its value as the store answers it (numbers, strings,
   *     booleans)
   * @param total the documents of the group
   * @param conditions per named condition, how many of them also meet it
   * @param sample the {@code sampleFields} of one document of the group (those it has)
   */
  public record Group(Map<String, Object> key, long total, Map<String, Long> conditions, Map<String, Object> sample) {}
}
