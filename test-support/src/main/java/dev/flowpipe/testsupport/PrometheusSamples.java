package dev.flowpipe.testsupport;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The samples of a Prometheus text exposition (what a node answers at {@code /actuator/prometheus}): one per line
 * {@code name{label="value",...} value}, comments and blank lines skipped. The one reader of that format for the
 * tests and the benchmarks; questions about a metric (its sum over series, its largest value, a label's series) are
 * asked of the parsed samples, never of the raw lines.
 */
public final class PrometheusSamples {

  /** One sample: metric name, labels, value. */
  public record Sample(String name, Map<String, String> labels, double value) {
    /** The label's value, or null. */
    public String label(String key) {
      return labels.get(key);
    }

    /** Whether it carries every one of {@code labels}' entries. */
    public boolean has(Map<String, String> wanted) {
      return labels.entrySet().containsAll(wanted.entrySet());
    }
  }

  private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)(?: \\d+)?$");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  private final List<Sample> samples;

  private PrometheusSamples(List<Sample> samples) {
    this.samples = samples;
  }

  public static PrometheusSamples parse(String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      Matcher sample = LINE.matcher(line.strip());
      if (!sample.matches()) {
        throw new IllegalArgumentException("not a Prometheus sample line: '" + line + "'");
      }
      Map<String, String> labels = new LinkedHashMap<>();
      if (sample.group(2) != null) {
        Matcher label = LABEL.matcher(sample.group(2));
        while (label.find()) {
          labels.put(label.group(1), label.group(2));
        }
      }
      samples.add(new Sample(sample.group(1), Collections.unmodifiableMap(labels), value(sample.group(3))));
    }
    return new PrometheusSamples(List.copyOf(samples));
  }

  private static double value(String text) {
    return switch (text) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      default -> Double.parseDouble(text);
    };
  }

  /**
   * A label filter written as in the text, {@code reason="delay"}, or "" for none; what {@link Sample#has} takes.
   */
  public static Map<String, String> labels(String filter) {
    Map<String, String> labels = new LinkedHashMap<>();
    Matcher label = LABEL.matcher(filter);
    while (label.find()) {
      labels.put(label.group(1), label.group(2));
    }
    return labels;
  }

  /** Every sample of this metric, in the order of the text. */
  public List<Sample> named(String name) {
    return samples.stream().filter(sample -> sample.name().equals(name)).toList();
  }

  /** The samples of this metric that carry the labels of {@code filter} ({@link #labels(String)}). */
  public List<Sample> named(String name, String filter) {
    Map<String, String> wanted = labels(filter);
    return named(name).stream().filter(sample -> sample.has(wanted)).toList();
  }

  /** The sum of this metric over its series (e.g. over partitions); 0 without any. */
  public double sum(String name) {
    return named(name).stream().mapToDouble(Sample::value).sum();
  }

  /** The largest value of this metric over its series; empty without any. */
  public OptionalDouble max(String name) {
    return named(name).stream().mapToDouble(Sample::value).max();
  }

  public List<Sample> all() {
    return samples;
  }
}
