package dev.flowpipe.schema.store;

/** The store could not be reached or answered with a server-side error: worth retrying later. */
public class StoreUnavailableException extends RuntimeException {
  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  public StoreUnavailableException(String message) {
    super(message);
  }
}
