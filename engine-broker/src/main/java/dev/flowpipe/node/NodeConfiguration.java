package dev.flowpipe.node;

import dev.flowpipe.node.broker.EmbeddedBroker;
import dev.flowpipe.node.config.NodeProperties;
import dev.flowpipe.node.store.RunningStore;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the node in start-up order: the store first (the exporter needs it), then the broker. Spring closes them in
 * reverse, so on shutdown the broker and its exporter finish before the store stops.
 */
@Configuration(proxyBeanMethods = false)
public class NodeConfiguration {

  @Bean(destroyMethod = "close")
  RunningStore runningStore(NodeProperties properties) {
    return RunningStore.start(properties);
  }

  @Bean(destroyMethod = "close")
  EmbeddedBroker embeddedBroker(NodeProperties properties, RunningStore store, MeterRegistry meterRegistry) {
    return EmbeddedBroker.start(properties, store, meterRegistry);
  }
}
