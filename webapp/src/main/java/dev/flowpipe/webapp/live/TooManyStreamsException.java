package dev.flowpipe.webapp.live;

/** One more live stream than {@code flowpipe.webapp.live.max-streams} allows: answered 429, the browser tries later. */
public final class TooManyStreamsException extends RuntimeException {

  public TooManyStreamsException(int maxStreams) {
    super("too many live streams are open (flowpipe.webapp.live.max-streams = " + maxStreams + "); try again later");
  }
}
