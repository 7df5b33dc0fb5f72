package dev.flowpipe.schema.index;

/**
 * The variable filter's terms on a process-instance document: one keyword {@code name=value} per distinct variable of
 * the instance (any scope), kept exact by the writer and matched by the web app (ADR 15). Both build the term here, so
 * a filter value always meets the entry the writer wrote for the same name and value.
 *
 * <p>In the name, {@code \} and {@code =} are escaped with {@code \}, so the first unescaped {@code =} ends the name and
 * no two (name, value) pairs give one entry. The value is the variable's JSON text as the engine wrote it. An entry is
 * cut at {@link #MAX_CHARS} characters (at most 32,764 UTF-8 bytes, under Lucene's term limit): a longer value is
 * matched on its first characters, as Camunda matches a large variable on its truncated value.
 */
public final class VariableEntries {

  /** The process-instance field holding the entries (indexed keyword list). */
  public static final String FIELD = "variableEntries";
  /**
   * The process-instance field the writer keeps them exact with: one {@code <scopeKey>:<entry>} per variable (stored,
   * not indexed).
   */
  public static final String SCOPED_FIELD = "variableScopeEntries";
  /** An entry's longest form, in characters. */
  public static final int MAX_CHARS = 8191;

  private VariableEntries() {}

  /** The entry of a variable with this name and JSON value. */
  public static String entry(String name, String value) {
    String entry = namePrefix(name) + value;
    if (entry.length() <= MAX_CHARS) {
      return entry;
    }
    // never half a surrogate pair: it is not a character, and has no UTF-8 form
    int end = Character.isHighSurrogate(entry.charAt(MAX_CHARS - 1)) ? MAX_CHARS - 1 : MAX_CHARS;
    return entry.substring(0, end);
  }

  /** What every entry of a variable with this name starts with: the escaped name and {@code =}. */
  public static String namePrefix(String name) {
    return name.replace("\\", "\\\\").replace("=", "\\=") + "=";
  }

  /** {@link #namePrefix}, written for a wildcard pattern: {@code \ * ?} escaped, so only the value part is a pattern. */
  public static String namePrefixAsPattern(String name) {
    String prefix = namePrefix(name);
    StringBuilder pattern = new StringBuilder(prefix.length() + 8);
    for (char c : prefix.toCharArray()) {
      if (c == '\\' || c == '*' || c == '?') {
        pattern.append('\\');
      }
      pattern.append(c);
    }
    return pattern.toString();
  }
}
