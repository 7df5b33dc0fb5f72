package dev.flowpipe.schema.store;

/**
 * The store answered a whole request with a client error other than "too large" (e.g. 401 or 403 for a user without
 * write rights, 403 for a cluster-wide write block): nothing in the request was applied, and sending it again changes
 * nothing until someone changes the store. Callers that must not lose what they sent keep it and try again later.
 */
public class StoreRefusedException extends IllegalStateException {

  private final int status;

  public StoreRefusedException(String message, int status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /** The HTTP status of the store's answer. */
  public int status() {
    return status;
  }
}
