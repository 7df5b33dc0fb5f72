package dev.flowpipe.webapp.operations;

/** A command the engine did not carry out, and why, in terms the HTTP answer maps to a status. */
public class EngineCommandException extends RuntimeException {

  /** Why a command was not carried out. */
  public enum Kind {
    /** The engine does not know the key (404). */
    NOT_FOUND,
    /** The engine refused the command as things stand, e.g. an instance that already ended (409). */
    REJECTED,
    /** The engine found the command itself invalid (400). */
    INVALID,
    /** The gateway or the partition's leader could not be reached, or refused work for now (503). */
    UNAVAILABLE,
    /** No answer within the request timeout; the command may or may not have been carried out (504). */
    TIMED_OUT,
    /** The web app has no gateway (501). */
    NOT_CONFIGURED
  }

  private final Kind kind;

  public EngineCommandException(Kind kind, String message) {
    this(kind, message, null);
  }

  public EngineCommandException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
