package dev.flowpipe.schema.query;

import java.util.Objects;

/**
 * One sort key of a {@link SearchQuery}.
 *
 * @param field the stored field
 * @param descending largest first
 * @param missingFirst documents without the field come first (else last); flip it together with {@code descending}
 *     to walk the same order backwards
 */
public record SortField(String field, boolean descending, boolean missingFirst) {

  public SortField {
    Objects.requireNonNull(field, "field");
  }

  public static SortField ascending(String field) {
    return new SortField(field, false, false);
  }

  /** The same key walked the other way: what comes last now comes first. */
  public SortField reversed() {
    return new SortField(field, !descending, !missingFirst);
  }
}
