package dev.flowpipe.benchmarks.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import dev.flowpipe.benchmarks.load.LoadSettings;

/**
 * A scenario's {@code --name=value} arguments, read once each: a value of the wrong form or a name the scenario does
 * not know fails naming the scenario, the argument and the value. Arguments starting with {@code passThrough} (e.g.
 * {@code --flowpipe.importer.}) are kept as they are for the process they configure. The one convention of
 * {@code benchmarks/run}; the positional arguments of the older scenarios are read as their {@code --name=value}
 * ({@link #positional}).
 */
public final class ScenarioArguments {

  private final String scenario;
  private final Map<String, List<String>> values = new LinkedHashMap<>();
  private final List<String> passedThrough = new ArrayList<>();

  public ScenarioArguments(String scenario, List<String> args, String passThrough) {
    this.scenario = scenario;
    for (String arg : args) {
      if (passThrough != null && arg.startsWith(passThrough) && arg.contains("=")) {
        passedThrough.add(arg);
        continue;
      }
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException(scenario + ": arguments are --name=value, was '" + arg + "'");
      }
      values.computeIfAbsent(arg.substring(2, eq), name -> new ArrayList<>()).add(arg.substring(eq + 1));
    }
  }

  /**
   * The arguments of a scenario whose leading arguments may be positional, as {@code benchmarks/run} documents them:
   * the i-th one not of the form {@code --name=value} stands for {@code --names[i]=value}; more positional arguments
   * than names fail, naming the scenario and the argument.
   */
  public static ScenarioArguments positional(String scenario, List<String> args, List<String> names, String passThrough) {
    List<String> named = new ArrayList<>();
    int position = 0;
    for (String arg : args) {
      if (arg.startsWith("--")) {
        named.add(arg);
      } else if (position < names.size()) {
        named.add("--" + names.get(position++) + "=" + arg);
      } else {
        throw new IllegalArgumentException(scenario + ": at most " + names.size() + " positional arguments ("
            + String.join(", ", names) + "), then --name=value; was '" + arg + "'");
      }
    }
    return new ScenarioArguments(scenario, named, passThrough);
  }

  public String text(String name, String fallback) {
    String text = single(name);
    return text == null ? fallback : text;
  }

  public long whole(String name, long fallback) {
    String text = single(name);
    if (text == null) {
      return fallback;
    }
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw bad(name, text, "a whole number");
    }
  }

  public int integer(String name, int fallback) {
    long value = whole(name, fallback);
    if (value != (int) value) {
      throw bad(name, Long.toString(value), "a whole number up to " + Integer.MAX_VALUE);
    }
    return (int) value;
  }

  public double number(String name, double fallback) {
    String text = single(name);
    if (text == null) {
      return fallback;
    }
    try {
      return Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      throw bad(name, text, "a number");
    }
  }

  public Duration duration(String name, Duration fallback) {
    String text = single(name);
    return text == null ? fallback : LoadSettings.duration(scenario + ": --" + name, text);
  }

  /** A size such as {@code 512}, {@code 1KB} or {@code 2MB}, in bytes. */
  public int size(String name, int fallback) {
    String text = single(name);
    return text == null ? fallback : LoadSettings.bytes(scenario + ": --" + name, text);
  }

  /** {@code on} or {@code off}. */
  public boolean onOff(String name, boolean fallback) {
    String text = single(name);
    if (text == null) {
      return fallback;
    }
    return switch (text.trim()) {
      case "on" -> true;
      case "off" -> false;
      default -> throw bad(name, text, "on or off");
    };
  }

  public List<String> list(String name, List<String> fallback) {
    String text = single(name);
    return text == null ? fallback : List.of(text.split(","));
  }

  /** Every value of an argument that may be given more than once ({@code --node-arg=a --node-arg=b}), in order. */
  public List<String> texts(String name) {
    List<String> given = values.remove(name);
    return given == null ? List.of() : List.copyOf(given);
  }

  /** The one value of {@code name}, or null; given twice, it fails naming both values. */
  private String single(String name) {
    List<String> given = values.remove(name);
    if (given == null) {
      return null;
    }
    if (given.size() > 1) {
      throw new IllegalArgumentException(scenario + ": --" + name + " given " + given.size() + " times, was "
          + given.stream().map(v -> "'" + v + "'").toList());
    }
    return given.getFirst();
  }

  public List<String> passedThrough() {
    return List.copyOf(passedThrough);
  }

  /** Fails naming the first argument no getter asked for; call after reading every known one. */
  public void requireAllKnown(List<String> known) {
    if (!values.isEmpty()) {
      String name = values.keySet().iterator().next();
      throw new IllegalArgumentException(scenario + ": unknown argument --" + name + "=" + values.get(name).getFirst()
          + " (known: " + String.join(", ", known.stream().map(k -> "--" + k).toList()) + ")");
    }
  }

  public IllegalArgumentException bad(String name, String text, String expected) {
    return new IllegalArgumentException(scenario + ": --" + name + " must be " + expected + ", was '" + text + "'");
  }
}
