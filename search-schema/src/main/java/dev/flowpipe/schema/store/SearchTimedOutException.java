package dev.flowpipe.schema.store;

/**
 * The store stopped a search at its {@code timeout} (the answer's {@code timed_out}): what it had found by then is a
 * part, so it is not passed on. A {@link QueryRejectedException}: the same search is likely to take as long again;
 * a narrower one (no leading wildcard, a smaller range) is the remedy.
 */
public class SearchTimedOutException extends QueryRejectedException {
  public SearchTimedOutException(String message) {
    super(message, null);
  }
}
