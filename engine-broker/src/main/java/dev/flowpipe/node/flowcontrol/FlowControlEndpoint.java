package dev.flowpipe.node.flowcontrol;

import dev.flowpipe.node.config.FlowControlProperties;
import dev.flowpipe.node.config.FlowControlProperties.Mode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.lang.Nullable;

/**
 * {@code GET /actuator/flowControl}: the settings and, per partition, the request limiter, the write limit, the
 * write and export rates and the exporter's lag. {@code POST /actuator/flowControl} with a JSON body of the settings
 * to change ({@code enabled}, {@code mode}, {@code maxExportLag}, {@code acceptableBacklog}, {@code minWriteRate},
 * {@code resolution}, {@code writeLimit}; durations as "250ms" or "PT0.25S"); an invalid body gets 400 naming the
 * field, and nothing changes.
 */
@Endpoint(id = "flowControl")
public class FlowControlEndpoint {

  private final FlowControlService service;

  public FlowControlEndpoint(FlowControlService service) {
    this.service = service;
  }

  @ReadOperation
  public Map<String, Object> flowControl() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("settings", settings(service.settings()));
    body.put("partitions", service.report());
    return body;
  }

  @WriteOperation
  public Map<String, Object> configure(
      @Nullable Boolean enabled, @Nullable String mode, @Nullable String maxExportLag,
      @Nullable Long acceptableBacklog, @Nullable Integer minWriteRate, @Nullable String resolution,
      @Nullable Integer writeLimit) {
    FlowControlProperties next;
    try {
      next = service.settings().with(
          enabled,
          mode == null ? null : Mode.parse("mode", mode),
          duration("maxExportLag", maxExportLag),
          acceptableBacklog, minWriteRate,
          duration("resolution", resolution),
          writeLimit);
    } catch (IllegalArgumentException e) {
      String message = e.getMessage().replace("flowpipe.flow-control.", "");
      throw new InvalidEndpointRequestException(message, message);
    }
    service.update(next);
    return flowControl();
  }

  private static Duration duration(String field, String text) {
    if (text == null) {
      return null;
    }
    try {
      return DurationStyle.detectAndParse(text.trim());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(field + " must be a duration such as 250ms or PT0.25S, was '" + text + "'");
    }
  }

  private static Map<String, Object> settings(FlowControlProperties s) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("enabled", s.enabled());
    map.put("mode", s.mode().name().toLowerCase());
    map.put("maxExportLag", DurationStyle.SIMPLE.print(s.maxExportLag()));
    map.put("acceptableBacklog", s.acceptableBacklog());
    map.put("minWriteRate", s.minWriteRate());
    map.put("resolution", DurationStyle.SIMPLE.print(s.resolution()));
    map.put("writeLimit", s.writeLimit());
    return map;
  }
}
