package dev.flowpipe.schema.query;

import java.util.List;
import java.util.Objects;

/**
 * One condition of a {@link SearchQuery} on stored fields, in the store's own terms (field names as indexed, values as
 * stored). A query matches the documents that meet all its criteria.
 */
public sealed interface Criterion {

  /** The field holds exactly this value (keyword, number, boolean or date). */
  record Equals(String field, Object value) implements Criterion {
    public Equals {
      Objects.requireNonNull(field, "field");
      Objects.requireNonNull(value, "value");
    }
  }

  /** The field holds one of these values. */
  record OneOf(String field, List<Object> values) implements Criterion {
    public OneOf {
      Objects.requireNonNull(field, "field");
      values = List.copyOf(values);
    }
  }

  /** The field has a value. */
  record Exists(String field) implements Criterion {
    public Exists {
      Objects.requireNonNull(field, "field");
    }
  }

  /** A keyword field matches a pattern where {@code *} stands for any characters and {@code ?} for one. */
  record Like(String field, String pattern) implements Criterion {
    public Like {
      Objects.requireNonNull(field, "field");
      Objects.requireNonNull(pattern, "pattern");
    }
  }

  /** Bounds on a number or date field; null bounds are open. */
  record Range(String field, Object greaterThan, Object atLeast, Object lessThan, Object atMost) implements Criterion {
    public Range {
      Objects.requireNonNull(field, "field");
      if (greaterThan == null && atLeast == null && lessThan == null && atMost == null) {
        throw new IllegalArgumentException("a range on " + field + " needs at least one bound");
      }
    }
  }

  /** The opposite of another criterion (a document without the field matches {@code Not(Equals)}). */
  record Not(Criterion criterion) implements Criterion {
    public Not {
      Objects.requireNonNull(criterion, "criterion");
    }
  }

  /** At least one of the groups holds; a group holds when all its criteria do. */
  record AnyOf(List<List<Criterion>> groups) implements Criterion {
    public AnyOf {
      if (groups.isEmpty()) {
        throw new IllegalArgumentException("any of no groups can never hold; give at least one group");
      }
      groups = groups.stream().map(List::copyOf).toList();
    }
  }
}
