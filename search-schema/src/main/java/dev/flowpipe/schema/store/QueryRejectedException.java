package dev.flowpipe.schema.store;

/**
 * The store refused a search as malformed (HTTP 400), for example a cursor whose values do not fit the sorted fields.
 * Not worth retrying; the caller's input is at fault.
 */
public class QueryRejectedException extends RuntimeException {
  public QueryRejectedException(String message, Throwable cause) {
    super(message, cause);
  }
}
