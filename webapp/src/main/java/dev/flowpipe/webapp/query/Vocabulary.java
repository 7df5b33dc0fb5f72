package dev.flowpipe.webapp.query;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The closed set of values of one API field (a state, a type) as Camunda's REST API v2 names them, and the read
 * model's values behind each name. Filters turn a name into its stored values, answers turn a stored value into its
 * name. A name whose stored values are empty is one the read model never holds: a filter on it finds nothing. An alias
 * is a name beyond the specification that filters accept for compatibility and answers never use.
 */
public final class Vocabulary {

  private final Map<String, List<String>> storedByName;
  private final Map<String, List<String>> storedByAlias;

  private Vocabulary(Map<String, List<String>> storedByName, Map<String, List<String>> storedByAlias) {
    this.storedByName = storedByName;
    this.storedByAlias = storedByAlias;
  }

  /** Names the read model stores as they are. */
  public static Vocabulary of(String... names) {
    Map<String, List<String>> storedByName = new LinkedHashMap<>();
    for (String name : names) {
      storedByName.put(name, List.of(name));
    }
    return new Vocabulary(storedByName, Map.of());
  }

  /** This vocabulary with {@code name} standing for these stored values (none: the read model never holds it). */
  public Vocabulary storing(String name, String... stored) {
    if (!storedByName.containsKey(name)) {
      throw new IllegalArgumentException(name + " is not one of " + storedByName.keySet());
    }
    Map<String, List<String>> changed = new LinkedHashMap<>(storedByName);
    changed.put(name, List.of(stored));
    return new Vocabulary(changed, storedByAlias);
  }

  /** This vocabulary with a name beyond the specification that filters accept, standing for these stored values. */
  public Vocabulary alias(String alias, String... stored) {
    Map<String, List<String>> aliases = new LinkedHashMap<>(storedByAlias);
    aliases.put(alias, List.of(stored));
    return new Vocabulary(storedByName, aliases);
  }

  /** The names of the specification, in its order. */
  public List<String> names() {
    return List.copyOf(storedByName.keySet());
  }

  public Set<String> aliases() {
    return storedByAlias.keySet();
  }

  /**
   * The stored values a name (or an alias) stands for.
   *
   * @throws IllegalArgumentException for any other name, saying which are allowed
   */
  public List<String> stored(String name) {
    List<String> stored = storedByName.getOrDefault(name, storedByAlias.get(name));
    if (stored == null) {
      throw new IllegalArgumentException("expected one of " + names()
          + (storedByAlias.isEmpty() ? "" : " (or " + String.join(", ", storedByAlias.keySet()) + ")")
          + ", was \"" + name + "\"");
    }
    return stored;
  }

  /** The name to answer for a stored value; a value no name stands for is answered as it is. */
  public String name(String stored) {
    for (Map.Entry<String, List<String>> entry : storedByName.entrySet()) {
      if (entry.getValue().contains(stored)) {
        return entry.getKey();
      }
    }
    return stored;
  }

  /**
   * The stored values of every name (not alias) that matches a {@code $like} pattern: {@code *} any characters,
   * {@code ?} one, a backslash takes the next character literally.
   */
  public List<String> storedMatching(String pattern) {
    Pattern regex = likePattern(pattern);
    Set<String> stored = new LinkedHashSet<>();
    storedByName.forEach((name, values) -> {
      if (regex.matcher(name).matches()) {
        stored.addAll(values);
      }
    });
    return new ArrayList<>(stored);
  }

  private static Pattern likePattern(String like) {
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < like.length(); i++) {
      char c = like.charAt(i);
      if (c == '\\' && i + 1 < like.length()) {
        regex.append(Pattern.quote(String.valueOf(like.charAt(++i))));
      } else if (c == '*') {
        regex.append(".*");
      } else if (c == '?') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(regex.toString(), Pattern.DOTALL);
  }
}
