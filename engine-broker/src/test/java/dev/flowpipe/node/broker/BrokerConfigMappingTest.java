package dev.flowpipe.node.broker;

import dev.flowpipe.writer.config.WriterSettings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.exporter.ReadModelExporter;
import dev.flowpipe.exporter.config.ExporterConfiguration;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.node.config.NodeProperties;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.StoreConnection;
import io.camunda.zeebe.broker.system.configuration.BrokerCfg;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * Our YAML keys land on the right Zeebe settings, multi-node ones included, and Zeebe's own keys reach the running
 * broker (its store: the shared OpenSearch).
 */
@ExtendWith(SharedOpenSearch.class)
class BrokerConfigMappingTest {

  private static NodeProperties bind(Map<String, String> yaml) {
    return new Binder(new MapConfigurationPropertySource(yaml)).bindOrCreate("flowpipe", NodeProperties.class);
  }

  @Test
  void clusterGatewayAndDataSettingsReachTheBrokerConfiguration() {
    NodeProperties properties =
        bind(
            Map.ofEntries(
                Map.entry("flowpipe.data-directory", "/tmp/node-2"),
                Map.entry("flowpipe.broker.node-id", "2"),
                Map.entry("flowpipe.broker.cluster-size", "3"),
                Map.entry("flowpipe.store.url", "http://search:9200"),
                Map.entry("flowpipe.broker.replication-factor", "3"),
                Map.entry("flowpipe.broker.partitions-count", "6"),
                Map.entry("flowpipe.broker.cluster-name", "prod"),
                Map.entry("flowpipe.broker.contact-points[0]", "10.0.0.1:26502"),
                Map.entry("flowpipe.broker.contact-points[1]", "10.0.0.2:26502"),
                Map.entry("flowpipe.broker.host", "0.0.0.0"),
                Map.entry("flowpipe.broker.command-port", "36501"),
                Map.entry("flowpipe.broker.internal-port", "36502"),
                Map.entry("flowpipe.broker.advertised-host", "10.0.0.3"),
                Map.entry("flowpipe.broker.advertised-internal-port", "46502"),
                Map.entry("flowpipe.gateway.host", "0.0.0.0"),
                Map.entry("flowpipe.gateway.port", "36500"),
                Map.entry("flowpipe.exporter.bulk.delay", "20ms"),
                Map.entry("flowpipe.exporter.on-foreign-store", "wipe-read-model"),
                Map.entry("flowpipe.exporter.index-prefix", "prod")));

    var cfg =
        EmbeddedBroker.brokerConfig(
            properties, new StoreConnection(URI.create("http://search:9200"), "u", "p", null, null));

    assertThat(cfg.getCluster().getNodeId()).isEqualTo(2);
    assertThat(cfg.getCluster().getClusterSize()).isEqualTo(3);
    assertThat(cfg.getCluster().getReplicationFactor()).isEqualTo(3);
    assertThat(cfg.getCluster().getPartitionsCount()).isEqualTo(6);
    assertThat(cfg.getCluster().getClusterName()).isEqualTo("prod");
    assertThat(cfg.getCluster().getInitialContactPoints()).containsExactly("10.0.0.1:26502", "10.0.0.2:26502");
    assertThat(cfg.getNetwork().getCommandApi().getPort()).isEqualTo(36501);
    assertThat(cfg.getNetwork().getInternalApi().getPort()).isEqualTo(36502);
    assertThat(cfg.getNetwork().getAdvertisedHost()).isEqualTo("10.0.0.3");
    assertThat(cfg.getNetwork().getInternalApi().getAdvertisedAddress().getPort()).isEqualTo(46502);
    assertThat(cfg.getNetwork().getCommandApi().getAdvertisedAddress().getPort())
        .as("not given: the command port itself").isEqualTo(36501);
    assertThat(cfg.getGateway().isEnable()).isTrue();
    assertThat(cfg.getGateway().getNetwork().getPort()).isEqualTo(36500);
    assertThat(cfg.getData().getDirectory()).isEqualTo(Path.of("/tmp/node-2/broker").toString());

    var exporter = cfg.getExporters().get(EmbeddedBroker.EXPORTER_ID);
    assertThat(exporter.getClassName()).isEqualTo(ReadModelExporter.class.getName());
    assertThat(exporter.getArgs())
        .containsEntry(WriterSettings.URL, "http://search:9200")
        .containsEntry(WriterSettings.USERNAME, "u")
        .containsEntry(WriterSettings.INDEX_PREFIX, "prod");
    assertThat(ExporterConfiguration.fromArguments(exporter.getArgs()).writer().flushPolicy().delay()).hasMillis(20);
    assertThat(ExporterConfiguration.fromArguments(exporter.getArgs()).onForeignStore())
        .isEqualTo(dev.flowpipe.exporter.config.OnForeignStore.WIPE_READ_MODEL);
  }

  @Test
  void theExporterCanBeSwitchedOff() {
    var cfg =
        EmbeddedBroker.brokerConfig(
            bind(Map.of("flowpipe.exporter.enabled", "false")), StoreConnection.of("http://search:9200"));

    assertThat(cfg.getExporters()).isEmpty();
  }

  @Test
  void zeebesOwnSettingsPassThroughAndTheNodesKeysDecideWhereBothNameOne() {
    Binder yaml = new Binder(new MapConfigurationPropertySource(Map.of(
        "zeebe.broker.data.snapshot-period", "7m",
        "zeebe.broker.data.disk.free-space.processing", "3GB",
        "zeebe.broker.backpressure.algorithm", "vegas",
        "zeebe.broker.network.host", "10.9.9.9",
        "zeebe.broker.cluster.partitionsCount", "9",
        "zeebe.broker.exporters.other.class-name", "com.example.OtherExporter",
        "flowpipe.broker.partitions-count", "2")));
    NodeProperties properties = yaml.bindOrCreate("flowpipe", NodeProperties.class);

    var cfg = EmbeddedBroker.brokerConfig(properties, StoreConnection.of("http://search:9200"),
        ZeebeBrokerSettings.bind(yaml));

    assertThat(cfg.getData().getSnapshotPeriod()).hasMinutes(7);
    assertThat(cfg.getData().getDisk().getFreeSpace().getProcessing().toBytes()).isEqualTo(3L * 1024 * 1024 * 1024);
    assertThat(cfg.getBackpressure().getAlgorithm().name()).isEqualTo("VEGAS");
    assertThat(cfg.getNetwork().getHost()).as("the node's default decides").isEqualTo("127.0.0.1");
    assertThat(cfg.getCluster().getPartitionsCount()).isEqualTo(2);
    assertThat(cfg.getExporters()).containsKeys("other", EmbeddedBroker.EXPORTER_ID);
    assertThat(cfg.getExporters().get("other").getClassName()).isEqualTo("com.example.OtherExporter");
    assertThat(ZeebeBrokerSettings.overridden(yaml)).containsExactlyInAnyOrder(
        "zeebe.broker.cluster.partitions-count (decided by flowpipe.broker.partitions-count)",
        "zeebe.broker.network.host (decided by flowpipe.broker.host)");
  }

  @Test
  void givenZeebesOwnSettingsInTheNodesConfigurationWhenTheNodeRunsThenItsBrokerRunsWithThem(
      EmbeddedSearchStore store, @TempDir Path data) {
    try (TestNode node = new TestNode(data)
        .with("flowpipe.store.url", store.url())
        .with("flowpipe.exporter.index-prefix", SharedOpenSearch.uniquePrefix())
        .with("zeebe.broker.data.snapshot-period", "7m")
        .with("zeebe.broker.backpressure.algorithm", "vegas")
        .start()) {

      // read back from the running broker, not from what the node meant to hand it
      BrokerCfg running = node.broker().broker().getConfig();
      assertThat(running.getData().getSnapshotPeriod()).hasMinutes(7);
      assertThat(running.getBackpressure().getAlgorithm().name()).isEqualTo("VEGAS");
    }
  }
}
