package dev.flowpipe.benchmarks.prometheus;

import dev.flowpipe.testsupport.PrometheusSamples;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * Commands the node's write limit (our flow control) refused since it started, summed over partitions, as the node
 * publishes them at {@code /actuator/prometheus} ({@code flowpipe_flowcontrol_rejected_total}, the broker's own
 * outcome count). The client sees every refusal as RESOURCE_EXHAUSTED; this tells flow control's from the request
 * limiter's. Over several nodes (a cluster, whose leaders each limit their partitions), the sum of their counts.
 */
public final class FlowControlRefusals {

  public static final String METRIC = "flowpipe_flowcontrol_rejected_total";

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final List<URI> prometheus;

  public FlowControlRefusals(URI nodeHttp) {
    this(List.of(nodeHttp));
  }

  public FlowControlRefusals(List<URI> nodesHttp) {
    this.prometheus = nodesHttp.stream().map(node -> node.resolve("/actuator/prometheus")).toList();
  }

  /** The count in the node's Prometheus text; 0 when absent (no partition led yet). */
  public static long parse(String text) {
    return Math.round(PrometheusSamples.parse(text).sum(METRIC));
  }

  /** The count now; fails when a node does not answer (a step's figure must not silently read 0). */
  public long read() throws java.io.IOException, InterruptedException {
    long total = 0;
    for (URI node : prometheus) {
      HttpResponse<String> response = http.send(
          HttpRequest.newBuilder(node).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new java.io.IOException(node + " answered " + response.statusCode());
      }
      total += parse(response.body());
    }
    return total;
  }
}
