package dev.flowpipe.webapp.query;

/**
 * The request is malformed; {@code part} names the bad part as a path into the request, e.g. {@code filter.state.$in}
 * or {@code sort[1].field}. Answered 400 with a problem document.
 */
public class BadRequestException extends RuntimeException {

  /** A detail longer than this is cut: it may quote a value of any size from the request. */
  static final int MAX_DETAIL = 2_000;

  private final String part;

  public BadRequestException(String part, String message) {
    super(cut(part + ": " + message));
    this.part = cut(part);
  }

  private static String cut(String text) {
    return text.length() <= MAX_DETAIL ? text
        : text.substring(0, MAX_DETAIL) + "... (" + text.length() + " characters)";
  }

  public String part() {
    return part;
  }
}
