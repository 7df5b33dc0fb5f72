package dev.flowpipe.webapp.query;

/**
 * The request is malformed; {@code part} names the bad part as a path into the request, e.g. {@code filter.state.$in}
 * or {@code sort[1].field}. Answered 400 with a problem document.
 */
public class BadRequestException extends RuntimeException {

  private final String part;

  public BadRequestException(String part, String message) {
    super(part + ": " + message);
    this.part = part;
  }

  public String part() {
    return part;
  }
}
