package dev.flowpipe.server.flowcontrol;

import dev.flowpipe.flowcontrol.ControlSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code GET /actuator/flowControl} of the server: the controller's settings, whether it is within its warm-up, the
 * write limit in force on the cluster and, per partition, its leader, the limit it asks for, the rates and the lag. Settings change through the server's
 * configuration (a restart), not here.
 */
@Endpoint(id = "flowControl")
public class ServerFlowControlEndpoint {

  private final StockClusterFlowController controller;
  private final ManagementEndpointApplier applier;

  public ServerFlowControlEndpoint(StockClusterFlowController controller, ManagementEndpointApplier applier) {
    this.controller = controller;
    this.applier = applier;
  }

  @ReadOperation
  public Map<String, Object> flowControl() {
    ControlSettings s = controller.settings();
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("enabled", s.enabled());
    settings.put("mode", s.mode().name().toLowerCase());
    settings.put("maxExportLag", s.maxExportLag().toString());
    settings.put("acceptableBacklog", s.acceptableBacklog());
    settings.put("minWriteRate", s.minWriteRate());
    settings.put("resolution", s.resolution().toString());
    settings.put("writeLimit", s.writeLimit());
    settings.put("window", s.window().toString());
    settings.put("warmUp", s.warmUp().toString());
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("settings", settings);
    body.put("warmingUp", controller.warmingUp());
    body.put("clusterWriteLimit", applier.inForce().isPresent() ? applier.inForce().getAsInt() : null);
    body.put("partitions", controller.report());
    return body;
  }
}
