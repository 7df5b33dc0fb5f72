package dev.flowpipe.webapp.live;

import org.springframework.context.SmartLifecycle;

/**
 * Ends the open live streams when the application stops, before the web server's graceful shutdown starts waiting for
 * requests in flight. A stream never ends by itself, so one open page would otherwise hold every stop for the whole
 * grace period ({@code spring.lifecycle.timeout-per-shutdown-phase}, 30 s) and then be cut off. Spring stops the
 * highest phase first; the graceful shutdown runs in a lower one.
 */
public final class LiveStreamsAtShutdown implements SmartLifecycle {

  private final LiveUpdates updates;
  private volatile boolean running;

  public LiveStreamsAtShutdown(LiveUpdates updates) {
    this.updates = updates;
  }

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    updates.close();
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return DEFAULT_PHASE;
  }
}
