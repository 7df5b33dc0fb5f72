package dev.flowpipe.node;

import dev.flowpipe.node.broker.EmbeddedBroker;
import dev.flowpipe.node.broker.ZeebeBrokerSettings;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.DiskSpaceMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import dev.flowpipe.node.config.NodeProperties;
import dev.flowpipe.node.flowcontrol.FlowControlEndpoint;
import dev.flowpipe.node.flowcontrol.FlowControlService;
import dev.flowpipe.node.store.RunningStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.simpleclient.bridge.SimpleclientCollector;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the node: the store is launched (or, if external, checked) first, the broker starts while an embedded store
 * boots. Spring closes them in reverse, so on shutdown the broker and its exporter finish before the store stops.
 */
@Configuration(proxyBeanMethods = false)
public class NodeConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(NodeConfiguration.class);

  @Bean(destroyMethod = "close")
  RunningStore runningStore(NodeProperties properties) {
    return RunningStore.start(properties);
  }

  @Bean(destroyMethod = "close")
  EmbeddedBroker embeddedBroker(NodeProperties properties, RunningStore store, MeterRegistry meterRegistry,
      Environment environment) {
    Binder binder = Binder.get(environment);
    for (String key : ZeebeBrokerSettings.overridden(binder)) {
      LOG.warn("{} is ignored: the node's own key decides this setting", key);
    }
    // the embedded store boots while the broker starts; the node is up only when both are
    EmbeddedBroker broker = EmbeddedBroker.start(properties, ZeebeBrokerSettings.bind(binder), store, meterRegistry);
    try {
      store.awaitReady();
    } catch (RuntimeException e) {
      broker.close();
      throw e;
    }
    return broker;
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
      NodeProperties properties, EmbeddedBroker broker, RunningStore store, MeterRegistry meterRegistry) {
    FlowControlService service =
        new FlowControlService(broker, meterRegistry, properties.flowControl(), store::diskAboveHighWatermark);
    service.start();
    return service;
  }

  @Bean
  FlowControlEndpoint flowControlEndpoint(FlowControlService service) {
    return new FlowControlEndpoint(service);
  }
}
