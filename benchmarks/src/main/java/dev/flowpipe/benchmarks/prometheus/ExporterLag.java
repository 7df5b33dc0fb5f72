package dev.flowpipe.benchmarks.prometheus;

import java.util.OptionalDouble;
import dev.flowpipe.testsupport.PrometheusSamples;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * The exporter's lag as the node publishes it at {@code /actuator/prometheus}: the age of the oldest record not yet
 * durable in the store ({@code flowpipe_exporter_lag_age_milliseconds}) and how many records that is
 * ({@code flowpipe_exporter_lag_records}); the largest over partitions.
 */
public record ExporterLag(long ageMillis, long records) {

  /** Reads the lag from the node's Prometheus text; null when the node publishes neither gauge (no exporter of ours). */
  public static ExporterLag parse(String prometheus) {
    PrometheusSamples samples = PrometheusSamples.parse(prometheus);
    OptionalDouble age = samples.max("flowpipe_exporter_lag_age_milliseconds");
    OptionalDouble records = samples.max("flowpipe_exporter_lag_records");
    return age.isEmpty() && records.isEmpty() ? null
        : new ExporterLag(Math.max(Math.round(age.orElse(0)), 0), Math.max(Math.round(records.orElse(0)), 0));
  }

  /**
   * Reads the lag of a node over HTTP, once a second from the load generator's sampler; of several nodes (a cluster,
   * whose leaders export), the largest.
   */
  public static final class Reader {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<URI> prometheus;

    public Reader(URI nodeHttp) {
      this(List.of(nodeHttp));
    }

    public Reader(List<URI> nodesHttp) {
      this.prometheus = nodesHttp.stream().map(node -> node.resolve("/actuator/prometheus")).toList();
    }

    /** The current lag, or null if no node answered within a second with a lag. */
    public ExporterLag read() {
      ExporterLag largest = null;
      for (URI node : prometheus) {
        ExporterLag lag = read(node);
        if (lag != null && (largest == null || lag.ageMillis() > largest.ageMillis())) {
          largest = lag;
        }
      }
      return largest;
    }

    private ExporterLag read(URI node) {
      try {
        HttpResponse<String> response = http.send(
            HttpRequest.newBuilder(node).timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 ? parse(response.body()) : null;
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        return null;
      }
    }
  }
}
