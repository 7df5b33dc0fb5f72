package dev.flowpipe.node.config;

import dev.flowpipe.importer.config.ImporterSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Everything the node reads from YAML, under the prefix {@code flowpipe}, but the store ({@code flowpipe.store.*}: the
 * connection every application shares and the node's embedded store, see {@link NodeStore}). Each group validates
 * itself when bound, so a bad value stops start-up before anything is written, with a message naming the key and the
 * value.
 *
 * @param dataDirectory where the broker ({@code broker/}) and the embedded store ({@code opensearch/}) keep their data
 * @param broker the Zeebe broker and its cluster
 * @param gateway the gRPC gateway that clients connect to
 * @param exporter the in-broker exporter that writes the read model
 * @param flowControl how the broker's write rate follows the exporter's lag
 * @param importer the importer of the stock exporter's raw records ({@code flowpipe.importer.*}, off by default; its
 *     keys and defaults are {@link ImporterSettings}'), validated with the store's settings ({@link NodeStore}),
 *     before anything starts
 * @param shutdownTimeout longest time from a stop signal (SIGTERM, Ctrl-C) to the node's exit, in every phase, start-up
 *     included; what has not stopped cleanly by then (the embedded store among it) is killed
 */
@ConfigurationProperties("flowpipe")
public record NodeProperties(
    @DefaultValue("./data") Path dataDirectory,
    @DefaultValue @NestedConfigurationProperty BrokerProperties broker,
    @DefaultValue @NestedConfigurationProperty GatewayProperties gateway,
    @DefaultValue @NestedConfigurationProperty ExporterProperties exporter,
    @DefaultValue @NestedConfigurationProperty FlowControlProperties flowControl,
    Map<String, Object> importer,
    @DefaultValue("60s") Duration shutdownTimeout) {

  public NodeProperties {
    importer = importer == null ? Map.of() : Map.copyOf(importer);
    Check.positive("flowpipe.shutdown-timeout", shutdownTimeout);
    if (dataDirectory == null || dataDirectory.toString().isBlank()) {
      throw new IllegalArgumentException("flowpipe.data-directory must not be empty");
    }
  }

  /** The importer's settings, reading from {@code storeUrl} (the node's store) unless a source URL is set. */
  public ImporterSettings importerSettings(String storeUrl) {
    return importerSettings(importer, storeUrl);
  }

  private static ImporterSettings importerSettings(Map<String, Object> importer, String storeUrl) {
    Map<String, Object> properties = new LinkedHashMap<>();
    importer.forEach((key, value) -> properties.put(ImporterSettings.PREFIX + key, value));
    return ImporterSettings.fromProperties(properties, storeUrl);
  }

  public Path brokerDirectory() {
    return dataDirectory.resolve("broker");
  }

  public Path storeDirectory() {
    return dataDirectory.resolve("opensearch");
  }
}
