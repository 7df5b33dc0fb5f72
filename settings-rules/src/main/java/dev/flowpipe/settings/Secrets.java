package dev.flowpipe.settings;

/**
 * How settings print a secret (a password, a trust store's password): the one place, so that every {@code toString()}
 * of every settings record (the node's, the web app's, the exporter's, the importer's) hides it the same way and says
 * whether one is set.
 */
public final class Secrets {

  /** What a set secret prints as. */
  public static final String MASK = "****";

  private Secrets() {}

  /** {@link #MASK} for a secret that is set, {@code null} for one that is not. */
  public static String mask(String secret) {
    return secret == null ? null : MASK;
  }
}
