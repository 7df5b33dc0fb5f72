package dev.flowpipe.webapp.query;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * How an API field's values are written in requests and answers, and what may be done with it. Each type turns a
 * JSON value from a filter into the value the store holds, or says why it cannot.
 */
public enum FieldType {
  /** A 64-bit key: a JSON string of digits (as answers write it) or a number. */
  KEY(true, true, true),
  INTEGER(true, true, true),
  STRING(true, false, true),
  BOOLEAN(true, false, true),
  /** An ISO-8601 date-time with offset, e.g. {@code 2026-11-02T10:15:30.000Z}. */
  DATE(true, true, true),
  /** Free text: returned, but neither filtered nor sorted on. */
  TEXT(false, false, false),
  /**
   * A boolean that says whether the stored field has a value (an element instance's {@code hasIncident}: its incident
   * key is set). Filtered with true or false; not sorted on.
   */
  PRESENCE(true, false, false);

  private final boolean filterable;
  private final boolean ordered;
  private final boolean sortable;

  FieldType(boolean filterable, boolean ordered, boolean sortable) {
    this.filterable = filterable;
    this.ordered = ordered;
    this.sortable = sortable;
  }

  public boolean filterable() {
    return filterable;
  }

  /** Takes {@code $gt $gte $lt $lte}. */
  public boolean ordered() {
    return ordered;
  }

  public boolean sortable() {
    return sortable;
  }

  /** Takes {@code $like}. */
  public boolean textual() {
    return this == STRING;
  }

  /**
   * The stored value for a JSON filter value.
   *
   * @throws IllegalArgumentException saying what was expected
   */
  public Object storedValue(JsonNode value) {
    return switch (this) {
      case KEY -> {
        if (value.isIntegralNumber() && value.canConvertToLong()) {
          yield value.longValue();
        }
        // the spec's keys may be negative (Camunda answers -1 for a standalone evaluation's instance keys, and a
        // client filters with what it was answered)
        if (value.isTextual() && value.asText().matches("-?\\d{1,19}")) {
          try {
            yield Long.parseLong(value.asText());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a key (digits, perhaps after a minus), was " + value);
          }
        }
        throw new IllegalArgumentException("expected a key (a string of digits or a number), was " + value);
      }
      case INTEGER -> {
        if (value.isIntegralNumber() && value.canConvertToInt()) {
          yield value.intValue();
        }
        throw new IllegalArgumentException("expected an integer, was " + value);
      }
      case STRING -> {
        if (!value.isTextual()) {
          throw new IllegalArgumentException("expected a string, was " + value);
        }
        yield value.asText();
      }
      case BOOLEAN, PRESENCE -> {
        if (!value.isBoolean()) {
          throw new IllegalArgumentException("expected true or false, was " + value);
        }
        yield value.booleanValue();
      }
      case DATE -> {
        if (!value.isTextual()) {
          throw new IllegalArgumentException("expected an ISO-8601 date-time string, was " + value);
        }
        try {
          yield OffsetDateTime.parse(value.asText()).toInstant().toString();
        } catch (DateTimeParseException e) {
          try {
            yield Instant.parse(value.asText()).toString();
          } catch (DateTimeParseException again) {
            throw new IllegalArgumentException(
                "expected an ISO-8601 date-time with offset (e.g. 2026-11-02T10:15:30Z), was " + value);
          }
        }
      }
      case TEXT -> throw new IllegalArgumentException("free text cannot be filtered on");
    };
  }

  /** Whether a cursor value fits this field's sort values (numbers for keys, integers, dates and booleans). */
  public boolean acceptsSortValue(Object value) {
    return value == null
        || switch (this) {
          case STRING -> value instanceof String;
          case KEY, INTEGER, DATE, BOOLEAN -> value instanceof Number;
          case TEXT, PRESENCE -> false;
        };
  }
}
