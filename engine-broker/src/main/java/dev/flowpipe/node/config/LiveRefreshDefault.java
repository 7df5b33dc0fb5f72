package dev.flowpipe.node.config;

import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The node's default for {@code flowpipe.webapp.live.refresh}: off while its exporter refreshes each bulk before it
 * marks the bulk's position ({@code flowpipe.exporter.bulk.refresh}, on by default), on otherwise. The live poller
 * then tells the pages of a move without a refresh of its own, which on a loaded store took hundreds of milliseconds
 * to seconds (docs/measurements/live-updates.md). Set either key and that value holds.
 */
public final class LiveRefreshDefault implements EnvironmentPostProcessor, Ordered {

  static final String LIVE_REFRESH = "flowpipe.webapp.live.refresh";
  static final String BULK_REFRESH = "flowpipe.exporter.bulk.refresh";

  @Override
  public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
    if (environment.containsProperty(LIVE_REFRESH)) {
      return;
    }
    // an invalid bulk.refresh is left for the exporter's settings to refuse with its own message
    String bulkRefresh = environment.getProperty(BULK_REFRESH, "true").trim();
    boolean exporterRefreshes = !bulkRefresh.equalsIgnoreCase("false");
    environment.getPropertySources().addLast(new MapPropertySource("flowpipe-node-live-refresh-default",
        Map.of(LIVE_REFRESH, !exporterRefreshes)));
  }

  @Override
  public int getOrder() {
    // after the application's own configuration files are read
    return Ordered.LOWEST_PRECEDENCE;
  }
}
