package dev.flowpipe.node.config;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Everything the node reads from YAML, under the prefix {@code flowpipe}. Each group validates itself when bound, so a
 * bad value stops start-up before anything is written, with a message naming the key and the value.
 *
 * @param dataDirectory where the broker ({@code broker/}) and the embedded store ({@code opensearch/}) keep their data
 * @param broker the Zeebe broker and its cluster
 * @param gateway the gRPC gateway that clients connect to
 * @param store the search store: embedded (no URL) or external
 * @param exporter the in-broker exporter that writes the read model
 * @param flowControl how the broker's write rate follows the exporter's lag
 */
@ConfigurationProperties("flowpipe")
public record NodeProperties(
    @DefaultValue("./data") Path dataDirectory,
    @DefaultValue @NestedConfigurationProperty BrokerProperties broker,
    @DefaultValue @NestedConfigurationProperty GatewayProperties gateway,
    @DefaultValue @NestedConfigurationProperty StoreProperties store,
    @DefaultValue @NestedConfigurationProperty ExporterProperties exporter,
    @DefaultValue @NestedConfigurationProperty FlowControlProperties flowControl) {

  public NodeProperties {
    if (dataDirectory == null || dataDirectory.toString().isBlank()) {
      throw new IllegalArgumentException("flowpipe.data-directory must not be empty");
    }
    if (broker.clusterSize() > 1 && store.isEmbedded() && !store.embedded().servesCluster()) {
      // each node would write its share to a store of its own, and a new leader would find no base documents
      throw new IllegalArgumentException("flowpipe.broker.cluster-size is " + broker.clusterSize()
          + " but flowpipe.store.url is empty, so this node would write its partitions' read model to an embedded"
          + " store of its own, which no other node reads after a failover. All nodes of a cluster write to one"
          + " store: set flowpipe.store.url to it on every node, or run it embedded in one node with"
          + " flowpipe.store.embedded.serves-cluster=true and set the others' flowpipe.store.url to that node's store");
    }
  }

  public Path brokerDirectory() {
    return dataDirectory.resolve("broker");
  }

  public Path storeDirectory() {
    return dataDirectory.resolve("opensearch");
  }
}
