package dev.flowpipe.benchmarks.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A part of a report: named values in the order they were added. A value is a text, a flag, a figure with its
 * unit, a nested section or a list of values; nothing else, so a report cannot carry an object the writers do not
 * know. Keys are the ones the JSON files and {@code docs/measurements/} quote.
 */
public final class Section {

  /** One value of a section. */
  public sealed interface Value permits Text, Flag, Figure, Nested, Items, Empty {}

  public record Text(String text) implements Value {
    public Text {
      Objects.requireNonNull(text, "text");
    }
  }

  public record Flag(boolean value) implements Value {}

  /** A number and what it counts; integral numbers stay integral in the JSON. */
  public record Figure(Number value, Unit unit) implements Value {
    public Figure {
      Objects.requireNonNull(value, "value");
      Objects.requireNonNull(unit, "unit");
    }
  }

  public record Nested(Section section) implements Value {}

  public record Items(List<Value> items) implements Value {
    public Items {
      items = List.copyOf(items);
    }
  }

  /** A value the run could not measure (written as JSON {@code null}). */
  public record Empty() implements Value {}

  private final Map<String, Value> values = new LinkedHashMap<>();

  /** The values by key, in the order added. */
  public Map<String, Value> values() {
    return Collections.unmodifiableMap(values);
  }

  public Value get(String key) {
    return values.get(key);
  }

  public Section text(String key, String text) {
    return put(key, text == null ? new Empty() : new Text(text));
  }

  public Section flag(String key, boolean value) {
    return put(key, new Flag(value));
  }

  public Section figure(String key, Number value, Unit unit) {
    return put(key, value == null ? new Empty() : new Figure(value, unit));
  }

  /** A figure whose unit the key names ({@link Unit#namedBy}), or none. */
  public Section figure(String key, Number value) {
    return figure(key, value, unitOf(key));
  }

  /** A new nested section under {@code key}, returned to be filled. */
  public Section section(String key) {
    Section child = new Section();
    put(key, new Nested(child));
    return child;
  }

  public Section section(String key, Section child) {
    return put(key, new Nested(child));
  }

  public Section sections(String key, List<Section> children) {
    return put(key, new Items(children.stream().<Value>map(Nested::new).toList()));
  }

  public Section figures(String key, List<? extends Number> numbers, Unit unit) {
    List<Value> items = new ArrayList<>();
    numbers.forEach(n -> items.add(n == null ? new Empty() : new Figure(n, unit)));
    return put(key, new Items(items));
  }

  public Section texts(String key, List<String> texts) {
    return put(key, new Items(texts.stream().<Value>map(Text::new).toList()));
  }

  /** A typed record (or any Jackson-serialisable value) under {@code key}, as its JSON shape: see {@link #of}. */
  public Section typed(String key, Object value) {
    return put(key, TypedValues.value(key, value));
  }

  /** Every value of {@code other} added here, in its order (a later key replaces an earlier one). */
  public Section merge(Section other) {
    values.putAll(other.values);
    return this;
  }

  public Section put(String key, Value value) {
    Objects.requireNonNull(key, "key");
    values.put(key, Objects.requireNonNull(value, "value"));
    return this;
  }

  /**
   * A section from a typed record of a scenario's own, as Jackson writes it (component names as keys, its
   * annotations honoured); numbers take the unit their key, or the nearest enclosing key, names.
   */
  public static Section of(Object record) {
    return TypedValues.section(record);
  }

  /** The values on one line, as the markdown writer shows a nested value ({@code {p50: 12 ms, p99: 30 ms}}). */
  @Override
  public String toString() {
    return ReportWriter.inline(new Nested(this));
  }

  private static Unit unitOf(String key) {
    Unit unit = Unit.namedBy(key);
    return unit == null ? Unit.NONE : unit;
  }
}
