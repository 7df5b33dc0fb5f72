package dev.flowpipe.schema.store;

/** How a secret (a store or user password, a trust store's password) shows in a settings record's text. */
public final class Secrets {

  /** What a set secret prints as. */
  public static final String MASK = "****";

  private Secrets() {}

  /** {@link #MASK} for a set secret, null for none: a log line tells whether one is set, never what it is. */
  public static String masked(String secret) {
    return secret == null ? null : MASK;
  }
}
