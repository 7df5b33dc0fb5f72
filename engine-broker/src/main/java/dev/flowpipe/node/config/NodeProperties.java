package dev.flowpipe.node.config;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
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
    @DefaultValue BrokerProperties broker,
    @DefaultValue GatewayProperties gateway,
    @DefaultValue StoreProperties store,
    @DefaultValue ExporterProperties exporter,
    @DefaultValue FlowControlProperties flowControl) {

  public NodeProperties {
    if (dataDirectory == null || dataDirectory.toString().isBlank()) {
      throw new IllegalArgumentException("flowpipe.data-directory must not be empty");
    }
  }

  public Path brokerDirectory() {
    return dataDirectory.resolve("broker");
  }

  public Path storeDirectory() {
    return dataDirectory.resolve("opensearch");
  }
}
