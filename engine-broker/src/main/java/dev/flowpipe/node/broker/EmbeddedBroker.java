package dev.flowpipe.node.broker;

import dev.flowpipe.exporter.ReadModelExporter;
import dev.flowpipe.node.config.NodeProperties;
import dev.flowpipe.node.store.RunningStore;
import dev.flowpipe.schema.store.StoreConnection;
import io.atomix.cluster.AtomixCluster;
import io.atomix.utils.Version;
import io.camunda.zeebe.broker.Broker;
import io.camunda.zeebe.broker.SpringBrokerBridge;
import io.camunda.zeebe.broker.client.api.BrokerClient;
import io.camunda.zeebe.broker.client.impl.BrokerClientImpl;
import io.camunda.zeebe.broker.client.impl.BrokerTopologyManagerImpl;
import io.camunda.zeebe.broker.clustering.ClusterConfigFactory;
import io.camunda.zeebe.broker.system.SystemContext;
import io.camunda.zeebe.broker.system.configuration.BrokerCfg;
import io.camunda.zeebe.broker.system.configuration.ExporterCfg;
import io.camunda.zeebe.broker.system.partitions.ZeebePartition;
import io.camunda.zeebe.scheduler.ActorScheduler;
import io.camunda.zeebe.scheduler.future.ActorFuture;
import io.camunda.zeebe.util.VersionUtil;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Zeebe broker with its gRPC gateway, running in this process. Zeebe has no embedding API; this follows the order
 * in which the Zeebe distribution's own Spring configuration builds it: actor scheduler, Atomix cluster, topology
 * manager, broker client, system context, broker. Closing goes the other way.
 */
public final class EmbeddedBroker implements AutoCloseable {

  public static final String EXPORTER_ID = "flowpipe";

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedBroker.class);

  private final BrokerCfg config;
  private final ActorScheduler scheduler;
  private final AtomixCluster cluster;
  private final BrokerClient brokerClient;
  private final SpringBrokerBridge bridge;
  private final Broker broker;
  private final Duration shutdownTimeout;
  private final Clock clock;

  private EmbeddedBroker(
      BrokerCfg config,
      ActorScheduler scheduler,
      AtomixCluster cluster,
      BrokerClient brokerClient,
      SpringBrokerBridge bridge,
      Broker broker,
      Duration shutdownTimeout,
      Clock clock) {
    this.config = config;
    this.scheduler = scheduler;
    this.cluster = cluster;
    this.brokerClient = brokerClient;
    this.bridge = bridge;
    this.broker = broker;
    this.shutdownTimeout = shutdownTimeout;
    this.clock = clock;
  }

  /** Builds the broker configuration from the node's settings: one place maps our keys onto Zeebe's. */
  static BrokerCfg brokerConfig(NodeProperties properties, StoreConnection connection) {
    return brokerConfig(properties, connection, new BrokerCfg());
  }

  /**
   * As {@link #brokerConfig(NodeProperties, StoreConnection)}, on top of {@code cfg} (Zeebe's own settings, see
   * {@link ZeebeBrokerSettings}): the node's keys overwrite what they own; Zeebe's exporters stay beside ours.
   */
  static BrokerCfg brokerConfig(NodeProperties properties, StoreConnection connection, BrokerCfg cfg) {
    return brokerConfig(properties, connection, cfg, Map.of());
  }

  /** As above, with further arguments for our exporter (retention's, kept apart from the node's settings). */
  static BrokerCfg brokerConfig(NodeProperties properties, StoreConnection connection, BrokerCfg cfg,
      Map<String, Object> exporterArguments) {
    var node = properties.broker();
    cfg.getCluster().setNodeId(node.nodeId());
    cfg.getCluster().setPartitionsCount(node.partitionsCount());
    cfg.getCluster().setReplicationFactor(node.replicationFactor());
    cfg.getCluster().setClusterSize(node.clusterSize());
    cfg.getCluster().setClusterName(node.clusterName());
    cfg.getCluster().setInitialContactPoints(node.contactPoints());
    cfg.getNetwork().setHost(node.host());
    cfg.getNetwork().setAdvertisedHost(node.advertisedHost());
    cfg.getNetwork().getCommandApi().setPort(node.commandPort());
    cfg.getNetwork().getCommandApi().setAdvertisedPort(node.advertisedCommandPort());
    cfg.getNetwork().getInternalApi().setPort(node.internalPort());
    cfg.getNetwork().getInternalApi().setAdvertisedPort(node.advertisedInternalPort());
    cfg.getThreads().setCpuThreadCount(node.cpuThreads());
    cfg.getThreads().setIoThreadCount(node.ioThreads());
    cfg.getData().setDirectory(properties.brokerDirectory().toAbsolutePath().toString());
    cfg.getGateway().setEnable(true);
    cfg.getGateway().getNetwork().setHost(properties.gateway().host()).setPort(properties.gateway().port());
    Map<String, ExporterCfg> exporters = new LinkedHashMap<>(cfg.getExporters());
    node.additionalExporters().forEach((id, additional) -> {
      ExporterCfg exporter = new ExporterCfg();
      exporter.setClassName(additional.className());
      exporter.setJarPath(additional.jarPath() == null || additional.jarPath().isBlank() ? null : additional.jarPath());
      exporter.setArgs(new LinkedHashMap<>(additional.args()));
      exporters.put(id, exporter);
    });
    if (properties.exporter().enabled()) {
      ExporterCfg exporter = new ExporterCfg();
      exporter.setClassName(ReadModelExporter.class.getName());
      Map<String, Object> args = new LinkedHashMap<>(properties.exporter().exporterArguments(connection));
      args.putAll(exporterArguments);
      exporter.setArgs(args);
      exporters.put(EXPORTER_ID, exporter);
    }
    cfg.setExporters(exporters);
    cfg.init(properties.dataDirectory().toAbsolutePath().toString());
    return cfg;
  }

  /**
   * Starts the broker on top of Zeebe's own settings {@code zeebe} and waits until it has started (partitions may still
   * be electing leaders); {@code clock} times its closing.
   */
  public static EmbeddedBroker start(NodeProperties properties, BrokerCfg zeebe, RunningStore store,
      MeterRegistry meterRegistry, Clock clock) {
    return start(properties, zeebe, store, meterRegistry, clock, Map.of());
  }

  /** As above, with further arguments for our exporter. */
  public static EmbeddedBroker start(NodeProperties properties, BrokerCfg zeebe, RunningStore store,
      MeterRegistry meterRegistry, Clock clock, Map<String, Object> exporterArguments) {
    BrokerCfg cfg = brokerConfig(properties, store.connection(), zeebe, exporterArguments);
    ActorScheduler scheduler =
        ActorScheduler.newActorScheduler()
            .setCpuBoundActorThreadCount(cfg.getThreads().getCpuThreadCount())
            .setIoBoundActorThreadCount(cfg.getThreads().getIoThreadCount())
            .setSchedulerName("Broker-" + cfg.getCluster().getNodeId())
            .build();
    scheduler.start();
    AtomixCluster cluster =
        new AtomixCluster(new ClusterConfigFactory().mapConfiguration(cfg), Version.from(VersionUtil.getVersion()));
    cluster.start().join();
    var topologyManager = new BrokerTopologyManagerImpl(() -> cluster.getMembershipService().getMembers());
    scheduler.submitActor(topologyManager).join();
    cluster.getMembershipService().addListener(topologyManager);
    BrokerClientImpl brokerClient =
        new BrokerClientImpl(
            cfg.getGateway().getCluster().getRequestTimeout(),
            cluster.getMessagingService(),
            cluster.getEventService(),
            scheduler,
            topologyManager);
    brokerClient.start().forEach(ActorFuture::join);
    SpringBrokerBridge bridge = new SpringBrokerBridge();
    Duration shutdownTimeout = properties.broker().shutdownTimeout();
    SystemContext context =
        new SystemContext(shutdownTimeout, cfg, null, scheduler, cluster, brokerClient, meterRegistry);
    Broker broker = new Broker(context, bridge);
    EmbeddedBroker embedded =
        new EmbeddedBroker(cfg, scheduler, cluster, brokerClient, bridge, broker, shutdownTimeout, clock);
    try {
      broker.start().get(properties.broker().shutdownTimeout().toMillis() * 4, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      embedded.close();
      throw new IllegalStateException("the Zeebe broker failed to start: " + e.getMessage(), e);
    }
    LOG.info("broker {} started; gateway on {}:{}", cfg.getCluster().getNodeId(),
        cfg.getGateway().getNetwork().getHost(), cfg.getGateway().getNetwork().getPort());
    return embedded;
  }

  public BrokerCfg config() {
    return config;
  }

  public Broker broker() {
    return broker;
  }

  public boolean isReady() {
    return bridge.getBrokerHealthCheckService().map(h -> h.isBrokerReady()).orElse(false);
  }

  public boolean isHealthy() {
    return bridge.getBrokerHealthCheckService().map(h -> h.isBrokerHealthy()).orElse(false);
  }

  /**
   * The partitions this broker runs, for health reports and flow control. A partition still being installed has no
   * ZeebePartition yet and is left out: Zeebe lists it as null, which failed the flow-control tick at every start and
   * made {@code /actuator/flowControl} answer 500 on a cluster node (LeaderChangeKeepsTheLimitTest on a busy machine).
   */
  public Collection<ZeebePartition> partitions() {
    var context = broker.getBrokerContext();
    return context == null ? List.of()
        : context.getPartitionManager().getZeebePartitions().stream().filter(Objects::nonNull).toList();
  }

  /** Closes the broker (the exporter flushes what it buffers and the log is flushed to disk), then its services. */
  @Override
  public void close() {
    long start = clock.millis();
    closeQuietly("broker", broker);
    closeQuietly("broker client", brokerClient);
    try {
      cluster.stop().get(shutdownTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      LOG.warn("stopping the cluster services failed", e);
    }
    try {
      scheduler.stop().get(shutdownTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      LOG.warn("stopping the actor scheduler failed", e);
    }
    LOG.info("broker closed in {} ms", clock.millis() - start);
  }

  private static void closeQuietly(String what, AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      LOG.warn("closing the {} failed", what, e);
    }
  }
}
