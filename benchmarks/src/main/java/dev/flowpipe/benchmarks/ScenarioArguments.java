package dev.flowpipe.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A scenario's {@code --name=value} arguments, read once each: a value of the wrong form or a name the scenario does
 * not know fails naming the scenario, the argument and the value. Arguments starting with {@code passThrough} (e.g.
 * {@code --flowpipe.importer.}) are kept as they are for the process they configure.
 */
final class ScenarioArguments {

  private final String scenario;
  private final Map<String, String> values = new LinkedHashMap<>();
  private final List<String> passedThrough = new ArrayList<>();

  ScenarioArguments(String scenario, List<String> args, String passThrough) {
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
      values.put(arg.substring(2, eq), arg.substring(eq + 1));
    }
  }

  int integer(String name, int fallback) {
    String text = values.remove(name);
    if (text == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw bad(name, text, "a whole number");
    }
  }

  double number(String name, double fallback) {
    String text = values.remove(name);
    if (text == null) {
      return fallback;
    }
    try {
      return Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      throw bad(name, text, "a number");
    }
  }

  Duration duration(String name, Duration fallback) {
    String text = values.remove(name);
    return text == null ? fallback : LoadSettings.duration(scenario + ": --" + name, text);
  }

  List<String> list(String name, List<String> fallback) {
    String text = values.remove(name);
    return text == null ? fallback : List.of(text.split(","));
  }

  List<String> passedThrough() {
    return List.copyOf(passedThrough);
  }

  /** Fails naming the first argument no getter asked for; call after reading every known one. */
  void requireAllKnown(List<String> known) {
    if (!values.isEmpty()) {
      String name = values.keySet().iterator().next();
      throw new IllegalArgumentException(scenario + ": unknown argument --" + name + "=" + values.get(name)
          + " (known: " + String.join(", ", known.stream().map(k -> "--" + k).toList()) + ")");
    }
  }

  IllegalArgumentException bad(String name, String text, String expected) {
    return new IllegalArgumentException(scenario + ": --" + name + " must be " + expected + ", was '" + text + "'");
  }
}
