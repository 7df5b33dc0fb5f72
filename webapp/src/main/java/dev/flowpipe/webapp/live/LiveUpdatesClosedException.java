package dev.flowpipe.webapp.live;

/** A stream asked for while the web app stops: answered 503, the browser's page polls or tries the next server. */
public final class LiveUpdatesClosedException extends RuntimeException {

  public LiveUpdatesClosedException() {
    super("the web app is stopping: no new live stream; try again later");
  }
}
