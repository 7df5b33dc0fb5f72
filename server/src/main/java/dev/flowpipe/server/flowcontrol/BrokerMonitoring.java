package dev.flowpipe.server.flowcontrol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.server.config.FlowControllerProperties;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stock Zeebe 8.6 broker's monitoring port, as the server uses it: the log's last appended position and the
 * broker's position for our exporter per partition from {@code GET /actuator/prometheus}, and the write limit through {@code POST /actuator/flowControl}. In 8.6 that
 * endpoint sends the configuration to every member of every partition of the cluster (the broker's own
 * {@code FlowControlServiceImpl} broadcasts it), so one call to any broker sets the limit cluster-wide.
 */
public final class BrokerMonitoring {

  /** The log appender's last appended position, per partition label. */
  static final String APPENDED_POSITION = "zeebe_log_appender_last_appended_position";
  /**
   * The position the broker keeps for an exporter (labels {@code exporter}, {@code partition}): what the exporter
   * acknowledged, moved on past the records its filter skips while it has nothing unacknowledged.
   */
  static final String EXPORTER_POSITION = "zeebe_exporter_last_updated_exported_position";
  private static final Pattern PARTITION = Pattern.compile("[{,]partition=\"(\\d+)\"");
  private static final Pattern EXPORTER = Pattern.compile("[{,]exporter=\"([^\"]*)\"");

  /**
   * A broker's log positions per partition, from one Prometheus text.
   *
   * @param appended the last position appended to the partition's log
   * @param exported the position the broker keeps for our exporter (missing where it has none)
   */
  public record LogPositions(Map<Integer, Long> appended, Map<Integer, Long> exported) {
    public static final LogPositions NONE = new LogPositions(Map.of(), Map.of());
  }

  private final FlowControllerProperties settings;
  private final HttpClient http;
  private final ObjectMapper json = new ObjectMapper();

  public BrokerMonitoring(FlowControllerProperties settings, HttpClient http) {
    this.settings = settings;
    this.http = http;
  }

  /** The broker's monitoring base URL: configured for its node id, else from its host and the monitoring port. */
  public Optional<URI> url(int nodeId, ClusterView view) {
    for (FlowControllerProperties.Broker broker : settings.brokers()) {
      if (broker.nodeId() == nodeId) {
        return Optional.of(broker.monitoringUrl());
      }
    }
    String host = view.hosts().get(nodeId);
    return host == null ? Optional.empty()
        : Optional.of(URI.create(settings.monitoringScheme() + "://" + host + ":" + settings.monitoringPort()));
  }

  /** Per partition, the last position appended to its log on this broker (as leader, or as it was when it led). */
  public Map<Integer, Long> appendedPositions(URI base) throws IOException, InterruptedException {
    return logPositions(base).appended();
  }

  /** Per partition, the last appended position and the broker's position for our exporter (one request). */
  public LogPositions logPositions(URI base) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(
        HttpRequest.newBuilder(base.resolve("/actuator/prometheus")).timeout(settings.requestTimeout()).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + base + "/actuator/prometheus answered " + response.statusCode());
    }
    return logPositions(response.body(), settings.exporterId());
  }

  static LogPositions logPositions(String prometheusText, String exporterId) {
    Map<Integer, Long> appended = new HashMap<>();
    Map<Integer, Long> exported = new HashMap<>();
    for (String line : prometheusText.split("\n")) {
      if (isSample(line, APPENDED_POSITION)) {
        putByPartition(appended, line);
      } else if (isSample(line, EXPORTER_POSITION)) {
        Matcher exporter = EXPORTER.matcher(line);
        if (exporter.find() && exporter.group(1).equals(exporterId)) {
          putByPartition(exported, line);
        }
      }
    }
    return new LogPositions(appended, exported);
  }

  private static boolean isSample(String line, String name) {
    return line.startsWith(name) && line.length() > name.length() && line.charAt(name.length()) == '{';
  }

  private static void putByPartition(Map<Integer, Long> positions, String line) {
    Matcher partition = PARTITION.matcher(line);
    if (partition.find()) {
      String value = line.substring(line.lastIndexOf('}') + 1).trim().split("\\s+")[0];
      positions.merge(Integer.parseInt(partition.group(1)), (long) Double.parseDouble(value), Math::max);
    }
  }

  /**
   * Sets the cluster's write limit (records per second per partition), or removes it (empty). The broker's own
   * record-count throttle stays off: it would fight the lag controller.
   */
  public void postWriteLimit(URI base, OptionalInt limit) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(
        HttpRequest.newBuilder(base.resolve("/actuator/flowControl")).timeout(settings.requestTimeout())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body(limit)))).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("POST " + base + "/actuator/flowControl answered " + response.statusCode() + ": "
          + abbreviate(response.body()));
    }
  }

  /**
   * The write limit per partition as the broker's {@code GET /actuator/flowControl} reports it (each partition's
   * leader's, as this broker knows the leaders; empty: no limit). The 8.6 endpoint fails as a whole when any
   * partition's leader does not answer.
   */
  public Map<Integer, OptionalInt> writeLimits(URI base) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(
        HttpRequest.newBuilder(base.resolve("/actuator/flowControl")).timeout(settings.requestTimeout()).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + base + "/actuator/flowControl answered " + response.statusCode());
    }
    return writeLimits(json.readTree(response.body()));
  }

  static Map<Integer, OptionalInt> writeLimits(JsonNode answer) throws IOException {
    Map<Integer, OptionalInt> limits = new HashMap<>();
    for (Map.Entry<String, JsonNode> partition : answer.properties()) {
      JsonNode write = partition.getValue().path("writeRateLimit");
      try {
        limits.put(Integer.parseInt(partition.getKey()),
            write.path("enabled").asBoolean() ? OptionalInt.of(write.path("limit").asInt()) : OptionalInt.empty());
      } catch (NumberFormatException e) {
        throw new IOException("GET /actuator/flowControl named a partition '" + partition.getKey() + "'", e);
      }
    }
    return limits;
  }

  /** The request of the 8.6 endpoint: a {@code FlowControlCfg} with only {@code write} (the request limiter stays). */
  static Map<String, Object> body(OptionalInt limit) {
    Map<String, Object> write = new LinkedHashMap<>();
    write.put("enabled", limit.isPresent());
    write.put("limit", limit.orElse(0));
    write.put("rampUp", Duration.ZERO.toString());
    write.put("throttling", Map.of("enabled", false));
    return Map.of("write", write);
  }

  private static String abbreviate(String body) {
    return body.length() <= 300 ? body : body.substring(0, 300) + "...";
  }
}
