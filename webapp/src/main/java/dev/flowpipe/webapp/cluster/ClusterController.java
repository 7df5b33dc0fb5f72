package dev.flowpipe.webapp.cluster;

import dev.flowpipe.webapp.operations.EngineCommandException;
import dev.flowpipe.webapp.operations.EngineCommands;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The cluster, as Camunda's REST API v2 shows it: {@code GET /v2/topology} and {@code GET /v2/status}, both read from
 * the gateway the operations go to (inside the node its own; on its own {@code operations.gateway-address}). Errors
 * of the topology as the operations' ({@code OperationProblems}): 503 gateway unreachable, 501 no gateway.
 */
@RestController
@RequestMapping(path = "/v2", produces = MediaType.APPLICATION_JSON_VALUE)
public class ClusterController {

  private final EngineCommands gateway;

  public ClusterController(EngineCommands gateway) {
    this.gateway = gateway;
  }

  @GetMapping("/topology")
  public Topology topology() {
    return gateway.topology();
  }

  /**
   * 204 when some partition has a healthy leader; otherwise 503, also when the gateway cannot be asked (the question
   * is whether the cluster can take work, and a client cannot send it any through here).
   */
  @GetMapping("/status")
  public ResponseEntity<ProblemDetail> status() {
    String down;
    try {
      if (gateway.topology().hasHealthyLeader()) {
        return ResponseEntity.noContent().build();
      }
      down = "no partition has a healthy leader";
    } catch (EngineCommandException e) {
      down = "the cluster's topology cannot be read: " + e.getMessage();
    }
    return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "1")
        .contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .body(ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, down));
  }
}
