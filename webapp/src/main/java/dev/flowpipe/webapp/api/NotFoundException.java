package dev.flowpipe.webapp.api;

/** No document with the requested key: answered 404. */
public class NotFoundException extends RuntimeException {
  public NotFoundException(String message) {
    super(message);
  }
}
