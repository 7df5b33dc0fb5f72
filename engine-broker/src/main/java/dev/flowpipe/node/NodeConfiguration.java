package dev.flowpipe.node;

import dev.flowpipe.node.broker.EmbeddedBroker;
import dev.flowpipe.node.broker.StartupLogCheck;
import dev.flowpipe.node.broker.ZeebeBrokerSettings;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.DiskSpaceMetrics;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import dev.flowpipe.node.config.EmbeddedStoreProperties;
import dev.flowpipe.node.config.NodeProperties;
import dev.flowpipe.node.config.NodeStore;
import dev.flowpipe.node.flowcontrol.FlowControlEndpoint;
import dev.flowpipe.node.flowcontrol.FlowControlService;
import dev.flowpipe.node.retention.RetentionProperties;
import dev.flowpipe.node.store.RunningStore;
import dev.flowpipe.webapp.config.StoreProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.simpleclient.bridge.SimpleclientCollector;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the node: the store is launched (or, if external, checked) and its schema made ready first, then the broker
 * starts. Spring closes them in reverse, so on shutdown the broker and its exporter finish before the store stops.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(StoreProperties.class)
public class NodeConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(NodeConfiguration.class);

  /** The node's one clock: every part that reads the time or waits for it is given this (tests give their own). */
  @Bean
  Clock clock() {
    return Clock.systemUTC();
  }

  /** The store's settings, joined and checked against the node's before anything starts. */
  @Bean
  NodeStore nodeStore(NodeProperties properties, StoreProperties connection, EmbeddedStoreProperties embedded) {
    return NodeStore.of(properties, connection, embedded);
  }

  @Bean(destroyMethod = "close")
  RunningStore runningStore(NodeProperties properties, NodeStore store, Clock clock) {
    return RunningStore.start(properties, store, clock);
  }

  @Bean(destroyMethod = "close")
  EmbeddedBroker embeddedBroker(NodeProperties properties, RunningStore store, MeterRegistry meterRegistry,
      Environment environment, Clock clock, RetentionProperties retention) {
    Binder binder = Binder.get(environment);
    for (String key : ZeebeBrokerSettings.overridden(binder)) {
      LOG.warn("{} is ignored: the node's own key decides this setting", key);
    }
    // the store is up and its schema ready (an older one migrated) before the broker starts: no exporter ever
    // migrates on the broker's actor thread, and the store's log identities are checked against the broker's disk
    store.awaitReady();
    StartupLogCheck.run(properties, store.client());
    return EmbeddedBroker.start(properties, ZeebeBrokerSettings.bind(binder), store, meterRegistry, clock,
        retention.exporterArguments());
  }

  /** Free and total space of the file system holding the node's data (its log, snapshots and embedded store). */
  @Bean
  MeterBinder dataDirectoryDiskSpace(NodeProperties properties) {
    return new DiskSpaceMetrics(properties.dataDirectory().toAbsolutePath().toFile());
  }

  /**
   * The broker counts processing, backpressure, exporting and Raft in the Prometheus simpleclient's default registry,
   * which {@code /actuator/prometheus} does not read by itself; bridged, they appear there beside the node's own.
   */
  @Bean
  SimpleclientCollector brokerMetrics(PrometheusRegistry registry) {
    return SimpleclientCollector.builder().collectorRegistry(CollectorRegistry.defaultRegistry).register(registry);
  }

  @Bean(destroyMethod = "close")
  FlowControlService flowControlService(
      NodeProperties properties, EmbeddedBroker broker, RunningStore store, MeterRegistry meterRegistry, Clock clock) {
    FlowControlService service =
        new FlowControlService(broker, meterRegistry, properties.flowControl(), store::diskAboveHighWatermark, clock);
    service.start();
    return service;
  }

  @Bean
  FlowControlEndpoint flowControlEndpoint(FlowControlService service) {
    return new FlowControlEndpoint(service);
  }
}
