package dev.flowpipe.node.flowcontrol;

import dev.flowpipe.node.config.FlowControlProperties;
import dev.flowpipe.flowcontrol.ControlSettings.Mode;
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
 * {@code resolution}, {@code writeLimit}, {@code window}, {@code warmUp}; durations as "250ms" or "PT0.25S"); an invalid body gets 400 naming the
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
    body.put("diskHold", service.diskHold());
    body.put("partitions", service.report());
    return body;
  }

  @WriteOperation
  public Map<String, Object> configure(
      @Nullable String enabled, @Nullable String mode, @Nullable String maxExportLag,
      @Nullable String acceptableBacklog, @Nullable String minWriteRate, @Nullable String resolution,
      @Nullable String writeLimit, @Nullable String window, @Nullable String warmUp) {
    // every value arrives as text and is parsed here, so a bad one is reported by its field name
    FlowControlProperties next;
    try {
      Long backlog = number("acceptableBacklog", acceptableBacklog);
      Long minRate = number("minWriteRate", minWriteRate);
      Long limit = number("writeLimit", writeLimit);
      next = service.settings().with(
          bool("enabled", enabled),
          mode == null ? null : Mode.parse("mode", mode),
          duration("maxExportLag", maxExportLag),
          backlog,
          minRate == null ? null : Math.toIntExact(minRate),
          duration("resolution", resolution),
          limit == null ? null : Math.toIntExact(limit),
          duration("window", window),
          duration("warmUp", warmUp));
    } catch (IllegalArgumentException | ArithmeticException e) {
      String message = e.getMessage().replace("flowpipe.flow-control.", "");
      throw new InvalidEndpointRequestException(message, message);
    }
    service.update(next);
    return flowControl();
  }

  private static Boolean bool(String field, String text) {
    if (text == null) {
      return null;
    }
    return switch (text.trim().toLowerCase()) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(field + " must be true or false, was '" + text + "'");
    };
  }

  private static Long number(String field, String text) {
    if (text == null) {
      return null;
    }
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(field + " must be a whole number, was '" + text + "'");
    }
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
    map.put("window", DurationStyle.SIMPLE.print(s.window()));
    map.put("warmUp", DurationStyle.SIMPLE.print(s.warmUp()));
    return map;
  }
}
