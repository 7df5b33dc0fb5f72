package dev.flowpipe.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camunda.zeebe.client.ZeebeClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One broker of Camunda's own Zeebe distribution (camunda-zeebe, unchanged) in a process of its own, started with the
 * distribution's {@code bin/broker} (which {@code exec}s the JVM, so the process is the broker) and configured the way
 * its users configure it: a YAML file of {@code zeebe.broker.*} settings, written by {@link StockZeebeCluster}. Its
 * gateway (embedded, gRPC) and its monitoring port ({@code /actuator/*}) are on free loopback ports; it can be killed
 * with SIGKILL and started again on the same data, ports and file.
 */
public final class StockZeebeBroker implements AutoCloseable {

  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The ports one broker listens on, all on 127.0.0.1. */
  public record Ports(int command, int internal, int gateway, int monitoring, int server) {
    static Ports free() {
      return new Ports(NodeProcess.freePort(), NodeProcess.freePort(), NodeProcess.freePort(), NodeProcess.freePort(),
          NodeProcess.freePort());
    }
  }

  private final int nodeId;
  private final Path home;
  private final Path config;
  private final Ports ports;
  private final Path log;
  private Process process;

  StockZeebeBroker(int nodeId, Path home, Path config, Ports ports, Path log) {
    this.nodeId = nodeId;
    this.home = home;
    this.config = config;
    this.ports = ports;
    this.log = log;
  }

  /** Starts the broker's process (again, after a kill) without waiting for it; its output is appended to its log. */
  void launch() throws IOException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("broker " + nodeId + " is running (pid " + process.pid() + ")");
    }
    ProcessBuilder builder = new ProcessBuilder(home.resolve("bin/broker").toString()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    // the 8.6 StandaloneBroker ignores command-line arguments: a further configuration file is named by a system
    // property (or the file replaces the distribution's config/application.yaml)
    builder.environment().put("JAVA_OPTS", "-Xmx512m -Dspring.config.additional-location=file:" + config);
    process = builder.start();
  }

  public int nodeId() {
    return nodeId;
  }

  public Ports ports() {
    return ports;
  }

  /** The broker's embedded gRPC gateway, for the official client. */
  public URI gateway() {
    return URI.create("http://127.0.0.1:" + ports.gateway());
  }

  /** The monitoring (management) port's base URI; {@code /actuator/...} hangs below it. */
  public URI monitoring() {
    return URI.create("http://127.0.0.1:" + ports.monitoring());
  }

  /** A client of this broker's gateway (plaintext, 20 s request timeout); the caller closes it. */
  public ZeebeClient client() {
    return ZeebeClient.newClientBuilder().grpcAddress(gateway()).usePlaintext()
        .defaultRequestTimeout(Duration.ofSeconds(20)).build();
  }

  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  public long pid() {
    return process.pid();
  }

  /** {@code GET /actuator/<path>} on the monitoring port. */
  public HttpResponse<String> actuator(String path) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(monitoring().resolve("/actuator/" + path)).timeout(Duration.ofSeconds(10))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The broker's Prometheus text, {@code GET /actuator/prometheus}. */
  public String prometheus() throws IOException, InterruptedException {
    return ok(actuator("prometheus")).body();
  }

  /**
   * {@code GET /actuator/flowControl}: the flow-control settings of the partitions this broker leads, keyed by
   * partition id ({@code {"1": {"requestLimiter": {...}, "writeRateLimit": null | {...}}}}; see test-support's README).
   */
  public JsonNode flowControl() throws IOException, InterruptedException {
    return JSON.readTree(ok(actuator("flowControl")).body());
  }

  /**
   * {@code POST /actuator/flowControl} with {@code body} (a {@code FlowControlCfg} as JSON, e.g.
   * {@code {"write": {"enabled": true, "limit": 50}}}); the answer, whatever its status, so that a refusal can be
   * asserted.
   */
  public HttpResponse<String> postFlowControl(String body) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(monitoring().resolve("/actuator/flowControl"))
        .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** As {@link #postFlowControl}, failing unless the broker answered 200; returns the settings it answered. */
  public JsonNode setFlowControl(String body) throws IOException, InterruptedException {
    return JSON.readTree(ok(postFlowControl(body)).body());
  }

  private HttpResponse<String> ok(HttpResponse<String> response) {
    if (response.statusCode() != 200) {
      throw new IllegalStateException("broker " + nodeId + " answered " + response.statusCode() + " to "
          + response.request().method() + " " + response.uri() + ": " + response.body());
    }
    return response;
  }

  /** The YAML file the broker reads on top of the distribution's own configuration. */
  public Path configFile() {
    return config;
  }

  /** The broker's output so far (of every run, after a restart). */
  public String log() throws IOException {
    return Files.readString(log);
  }

  public Path logFile() {
    return log;
  }

  public String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A crash: SIGKILL to the broker's JVM (no shutdown hook, nothing flushed); returns once it has exited. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("broker " + nodeId + " (pid " + process.pid() + ") runs 30 s after SIGKILL");
    }
  }

  /** SIGTERM; SIGKILL if it still runs after {@code grace}. */
  void stop(Duration grace) {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        kill();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  /** SIGTERM, then SIGKILL to whatever still runs after 30 s. */
  @Override
  public void close() {
    stop(Duration.ofSeconds(30));
  }
}
