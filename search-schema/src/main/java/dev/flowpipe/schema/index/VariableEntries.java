package dev.flowpipe.schema.index;

/**
 * The variable filter's terms on a process-instance document: one keyword {@code name=value} per distinct variable of
 * the instance (any scope), kept exact by the writer and matched by the web app (ADR 15). Both build the term here, so
 * a filter value always meets the entry the writer wrote for the same name and value.
 *
 * <p>In the name, {@code \} and {@code =} are escaped with {@code \} (and NUL written {@code \0}), so the first unescaped {@code =} ends the name and
 * no two (name, value) pairs give one entry. The value is the variable's JSON text as the engine wrote it. A long entry
 * is shortened with a hash of it ({@link #entry}), so an instance with many large variables stays a small document.
 */
public final class VariableEntries {

  /** The process-instance field holding the entries (indexed keyword list). */
  public static final String FIELD = "variableEntries";
  /**
   * The process-instance field the writer keeps them exact with: one {@code <scopeKey>:<namePrefix>\0<entry>} per
   * variable (stored, not indexed).
   */
  public static final String SCOPED_FIELD = "variableScopeEntries";
  /** The longest entry kept as it is, in characters; a longer one is {@link #SHORTENED_CHARS} long. */
  public static final int MAX_CHARS = 254;
  /** A longer entry's form: its first characters, {@code #} and the SHA-256 of all of it in hex. */
  public static final int SHORTENED_CHARS = 190 + 1 + 64;
  /** The longest keyword term an incident's message is cut to (as the incident's own exact message). */
  public static final int MAX_TERM_CHARS = 8191;

  private VariableEntries() {}

  /**
   * The entry of a variable with this name and JSON value: {@code name=value} up to {@link #MAX_CHARS} characters;
   * beyond, its first 190 characters, {@code #} and the SHA-256 of the whole entry. A filter value gives the same entry
   * for the same value however long, so {@code $eq} stays exact (up to a hash collision) while an instance document
   * holds at most 255 characters per variable; {@code $like} sees the first 190 characters of a long entry only.
   */
  public static String entry(String name, String value) {
    String entry = namePrefix(name) + value;
    if (entry.length() <= MAX_CHARS) {
      return entry;
    }
    return cut(entry, 190) + "#" + sha256(entry);
  }

  /** A text as a keyword term of at most {@link #MAX_TERM_CHARS} characters (an incident's message). */
  public static String cut(String text) {
    return cut(text, MAX_TERM_CHARS);
  }

  private static String cut(String text, int chars) {
    if (text.length() <= chars) {
      return text;
    }
    // never half a surrogate pair: it is not a character, and has no UTF-8 form
    return text.substring(0, Character.isHighSurrogate(text.charAt(chars - 1)) ? chars - 1 : chars);
  }

  private static String sha256(String text) {
    try {
      byte[] hash = java.security.MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(hash);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /** What every entry of a variable with this name starts with: the escaped name and {@code =}. */
  public static String namePrefix(String name) {
    // and NUL, which separates a source from its entry in the writer's stored list
    return name.replace("\\", "\\\\").replace("=", "\\=").replace("\0", "\\0") + "=";
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
