package dev.flowpipe.webapp.consistency;

/**
 * As many consistency requests wait as {@code flowpipe.webapp.consistency.max-waits} allows: this one is refused
 * (429 with {@code Retry-After}) instead of waiting in a queue that could grow without bound.
 */
public class TooManyWaitsException extends RuntimeException {

  /** The setting that bounds the waits. */
  public static final String LIMIT = "flowpipe.webapp.consistency.max-waits";

  private final int maxWaits;

  public TooManyWaitsException(int maxWaits) {
    super(maxWaits + " consistency requests are waiting already, the most this node holds at once (" + LIMIT
        + "); try again shortly, or without consistency");
    this.maxWaits = maxWaits;
  }

  public int maxWaits() {
    return maxWaits;
  }
}
