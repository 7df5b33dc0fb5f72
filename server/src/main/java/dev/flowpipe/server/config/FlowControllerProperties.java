package dev.flowpipe.server.config;

import dev.flowpipe.flowcontrol.ControlSettings;
import dev.flowpipe.settings.SettingRules;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The flow controller for a stock cluster ({@code flowpipe.server.flow-control.*}): the same decisions as the node's
 * ({@code flowpipe.flow-control.*}, same keys and defaults), applied through each broker's monitoring port.
 *
 * @param enabled run the lag controller; off, only {@code write-limit} (if set) limits writes
 * @param mode {@code time} (hold the age of the oldest record not yet durable at {@code max-export-lag}) or
 *     {@code records} (hold the backlog at {@code acceptable-backlog})
 * @param maxExportLag target of the time mode
 * @param acceptableBacklog target of the records mode, in records; in time mode a backstop
 * @param minWriteRate the controller never limits writes below this many records per second
 * @param resolution how often the controller measures and adjusts
 * @param writeLimit a static limit, records per second, on top of the controller; 0 for none
 * @param window the span over which rates are measured and the decision to engage is taken
 * @param warmUp after the server starts, how long the lag must reach twice the target before the controller engages
 * @param brokers each broker's monitoring URL by its node id ({@code node-id}, {@code monitoring-url}); a broker not
 *     listed is reached at {@code monitoring-scheme://<its host in the gateway's topology>:monitoring-port}
 * @param monitoringPort the brokers' monitoring (management) port, for brokers not listed in {@code brokers}
 * @param monitoringScheme http or https, for brokers not listed in {@code brokers}
 * @param requestTimeout the longest a call to a broker's monitoring port or the gateway's topology may take (the
 *     controller's, readiness' and {@code GET /v2/topology}'s)
 * @param exporterId our exporter's id in the brokers' configuration ({@code zeebe.broker.exporters.<id>}): the
 *     broker's position for it counts the records our exporter's filter skips, which no mark in the store covers
 */
@ConfigurationProperties("flowpipe.server.flow-control")
public record FlowControllerProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("time") String mode,
    @DefaultValue("2s") Duration maxExportLag,
    @DefaultValue("100000") long acceptableBacklog,
    @DefaultValue("100") int minWriteRate,
    @DefaultValue("250ms") Duration resolution,
    @DefaultValue("0") int writeLimit,
    @DefaultValue("5s") Duration window,
    @DefaultValue("60s") Duration warmUp,
    List<Broker> brokers,
    @DefaultValue("9600") int monitoringPort,
    @DefaultValue("http") String monitoringScheme,
    @DefaultValue("2s") Duration requestTimeout,
    @DefaultValue("flowpipe") String exporterId) {

  private static final String P = "flowpipe.server.flow-control.";

  /**
   * One broker's monitoring address.
   *
   * @param nodeId the broker's node id ({@code zeebe.broker.cluster.nodeId})
   * @param monitoringUrl its monitoring port's base URL, e.g. {@code http://zeebe-0.zeebe:9600}
   */
  public record Broker(int nodeId, URI monitoringUrl) {}

  public FlowControllerProperties {
    brokers = brokers == null ? List.of() : List.copyOf(brokers);
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < brokers.size(); i++) {
      Broker broker = brokers.get(i);
      URI url = broker.monitoringUrl();
      if (url == null || !("http".equals(url.getScheme()) || "https".equals(url.getScheme())) || url.getHost() == null) {
        throw new IllegalArgumentException(
            P + "brokers[" + i + "].monitoring-url must be http(s)://host:port, was '" + url + "'");
      }
      if (broker.nodeId() < 0 || !seen.add(broker.nodeId())) {
        throw new IllegalArgumentException(
            P + "brokers[" + i + "].node-id must be a node id >= 0 listed once, was " + broker.nodeId());
      }
    }
    if (monitoringPort < 1 || monitoringPort > 65535) {
      throw new IllegalArgumentException(P + "monitoring-port must be a port up to 65535, was " + monitoringPort);
    }
    if (!"http".equals(monitoringScheme) && !"https".equals(monitoringScheme)) {
      throw new IllegalArgumentException(P + "monitoring-scheme must be http or https, was '" + monitoringScheme + "'");
    }
    SettingRules.positive(P + "request-timeout", requestTimeout);
    if (exporterId == null || !exporterId.matches("[A-Za-z0-9_-]+")) {
      throw new IllegalArgumentException(P + "exporter-id must be the exporter's id in the brokers' configuration "
          + "(letters, digits, - and _), was '" + exporterId + "'");
    }
    control(P, enabled, mode, maxExportLag, acceptableBacklog, minWriteRate, resolution, writeLimit, window, warmUp);
  }

  /** The controller's settings. */
  public ControlSettings control() {
    return control(P, enabled, mode, maxExportLag, acceptableBacklog, minWriteRate, resolution, writeLimit, window,
        warmUp);
  }

  private static ControlSettings control(String prefix, boolean enabled, String mode, Duration maxExportLag,
      long acceptableBacklog, int minWriteRate, Duration resolution, int writeLimit, Duration window, Duration warmUp) {
    try {
      return new ControlSettings(enabled, ControlSettings.Mode.parse("mode", String.valueOf(mode)), maxExportLag,
          acceptableBacklog, minWriteRate, resolution, writeLimit, window, warmUp);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(prefix + e.getMessage(), e);
    }
  }
}
