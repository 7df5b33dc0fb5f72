package dev.flowpipe.schema.store;

/** The store refused a request as too large (HTTP 413): send less at once. */
public class RequestTooLargeException extends RuntimeException {
  public RequestTooLargeException(String message, Throwable cause) {
    super(message, cause);
  }
}
