package dev.flowpipe.webapp.live;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The live updates' meters, so what open pages cost the store is read from the web app's side:
 * {@code flowpipe.live.streams} (open now), {@code flowpipe.live.polls} (poller rounds that read the store),
 * {@code flowpipe.live.store.requests} (the poller's multi-gets and refreshes) and {@code flowpipe.live.streams.stuck}
 * (streams dropped because their page took no write for the write timeout).
 */
public final class LiveMetrics implements MeterBinder {

  private final LiveUpdates updates;

  public LiveMetrics(LiveUpdates updates) {
    this.updates = updates;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Gauge.builder("flowpipe.live.streams", updates, LiveUpdates::openStreams)
        .description("live streams open now").register(registry);
    FunctionCounter.builder("flowpipe.live.polls", updates, LiveUpdates::polls)
        .description("rounds of the live poller that read the store (none while no stream is open)").register(registry);
    FunctionCounter.builder("flowpipe.live.store.requests", updates, LiveUpdates::storeReads)
        .description("store requests of the live poller: export-position multi-gets and refreshes").register(registry);
    FunctionCounter.builder("flowpipe.live.streams.stuck", updates, LiveUpdates::stuckStreams)
        .description("live streams dropped because their page took no write for the write timeout")
        .register(registry);
  }
}
