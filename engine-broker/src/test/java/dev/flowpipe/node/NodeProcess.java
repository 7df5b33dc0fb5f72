package dev.flowpipe.node;

import static org.awaitility.Awaitility.await;

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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real node in a process of its own (so it can be killed with SIGKILL), on free ports, with its data in a directory
 * the test owns and its output in a log file there. The embedded store is its child process.
 */
public final class NodeProcess implements AutoCloseable {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final Process process;
  private final int httpPort;
  private final int gatewayPort;
  private final Path log;

  private NodeProcess(Process process, int httpPort, int gatewayPort, Path log) {
    this.process = process;
    this.httpPort = httpPort;
    this.gatewayPort = gatewayPort;
    this.log = log;
  }

  /** Starts a node on {@code data} with these settings ({@code flowpipe.*} keys) and waits until it is ready. */
  public static NodeProcess start(Path data, Map<String, Object> settings) throws IOException {
    NodeProcess node = launch(data, settings);
    node.awaitReady("/actuator/health/readiness");
    return node;
  }

  /**
   * Starts a node without waiting for it (the nodes of a cluster wait for each other). {@code settings} override the
   * defaults: free ports, the data directory, an embedded store of 512 MB.
   */
  public static NodeProcess launch(Path data, Map<String, Object> settings) throws IOException {
    return launch(data, settings, List.of());
  }

  /** As {@link #launch(Path, Map)}, with these jars on the node's class path too (e.g. another exporter's). */
  public static NodeProcess launch(Path data, Map<String, Object> settings, List<Path> extraJars) throws IOException {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("flowpipe.store.embedded.classpath", System.getProperty("flowpipe.store.embedded.classpath"));
    all.putAll(settings);
    List<String> java = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx768m",
        "-cp", classPath(extraJars), NodeApplication.class.getName());
    return launch(java, Map.of(), data, all);
  }

  /**
   * Starts a node with {@code command} (a JVM and its class path, or a launcher such as a distribution's
   * {@code bin/flowpipe}), {@code environment} added to this process's, and the settings given as arguments;
   * {@code settings} override the defaults of {@link #launch(Path, Map)} but the embedded store's class path, which
   * the command must know.
   */
  public static NodeProcess launch(List<String> command, Map<String, String> environment, Path data,
      Map<String, Object> settings) throws IOException {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("flowpipe.data-directory", data);
    all.put("server.port", TestNode.freePort());
    all.put("flowpipe.gateway.port", TestNode.freePort());
    all.put("flowpipe.broker.command-port", TestNode.freePort());
    all.put("flowpipe.broker.internal-port", TestNode.freePort());
    all.put("flowpipe.store.embedded.http-port", TestNode.freePort());
    all.put("flowpipe.store.embedded.transport-port", TestNode.freePort());
    all.put("flowpipe.store.embedded.heap", "512MB");
    all.putAll(settings);
    Files.createDirectories(data);
    Path log = Files.createTempFile(data.getParent(), "node", ".log");
    List<String> arguments = new ArrayList<>(command);
    all.forEach((key, value) -> arguments.add("--" + key + "=" + value));
    ProcessBuilder builder = new ProcessBuilder(arguments).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().putAll(environment);
    Process process = builder.start();
    return new NodeProcess(process, Integer.parseInt(String.valueOf(all.get("server.port"))),
        Integer.parseInt(String.valueOf(all.get("flowpipe.gateway.port"))), log);
  }

  private static String classPath(List<Path> extraJars) {
    List<String> entries = new ArrayList<>(List.of(System.getProperty("java.class.path")));
    extraJars.forEach(jar -> entries.add(jar.toString()));
    return String.join(java.io.File.pathSeparator, entries);
  }

  /**
   * Waits until the health group or component at {@code healthPath} is UP (readiness includes the store; a node
   * whose store is down is still a working broker at {@code /actuator/health/broker}).
   */
  public NodeProcess awaitReady(String healthPath) {
    return awaitReady(healthPath, Duration.ofSeconds(120));
  }

  /** As {@link #awaitReady(String)}, waiting up to {@code timeout} (a machine shared by many builds starts slowly). */
  public NodeProcess awaitReady(String healthPath, Duration timeout) {
    try {
      await("node up at :" + httpPort + healthPath).atMost(timeout).pollInterval(Duration.ofMillis(250))
          .ignoreExceptionsInstanceOf(IOException.class) // not listening yet
          .until(() -> isUp(healthPath));
    } catch (ConditionTimeoutException | AssertionError e) {
      close();
      throw new AssertionError("node not up at :" + httpPort + healthPath + "; its log ends:\n" + logTail(), e);
    }
    return this;
  }

  private boolean isUp(String healthPath) throws IOException {
    if (!process.isAlive()) {
      throw new AssertionError("node exited early");
    }
    HttpResponse<String> response = get(healthPath);
    return response.statusCode() == 200 && response.body().contains("\"status\":\"UP\"");
  }

  /** GET on the node's HTTP port. */
  public HttpResponse<String> get(String path) throws IOException {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  public int httpPort() {
    return httpPort;
  }

  /** The store's URL, as the node's health report names it. */
  public String storeUrl() throws IOException {
    String body = get("/actuator/health").body();
    int start = body.indexOf("\"url\":\"") + 7;
    return body.substring(start, body.indexOf('"', start));
  }

  public ZeebeClient client() {
    return ZeebeClient.newClientBuilder().grpcAddress(URI.create("http://127.0.0.1:" + gatewayPort))
        .usePlaintext().defaultRequestTimeout(Duration.ofSeconds(20)).build();
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed. Returns once the node and its store have exited. */
  public void kill() throws InterruptedException {
    List<ProcessHandle> children = process.descendants().toList();
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
    // the store notices its parent is gone and exits; a restart on the same data must wait for it
    await("the node's store exits after the node was killed").atMost(Duration.ofSeconds(30))
        .until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
  }

  public String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGTERM, as Ctrl-C or a service manager stops the node; true when it exited within {@code timeout}. */
  public boolean terminate(Duration timeout) throws InterruptedException {
    process.destroy();
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Waits up to {@code timeout} for the node to exit by itself; true when it has. */
  public boolean awaitExit(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * The embedded stores alive with their data under {@code data}, whoever their parent is now: a store whose node has
   * exited is no longer among its descendants.
   */
  public static List<ProcessHandle> storesOn(Path data) {
    String base = "--base-path " + data.toAbsolutePath();
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().map(line -> line.contains("EmbeddedOpenSearchMain")
            && line.contains(base)).orElse(false))
        .toList();
  }

  /** The node's process id. */
  public long pid() {
    return process.pid();
  }

  /** The exit code of the node's process, once it has exited. */
  public int exitCode() {
    return process.exitValue();
  }

  /** The embedded OpenSearch the node runs as its child process. */
  public ProcessHandle embeddedStore() {
    return process.descendants()
        .filter(p -> p.info().commandLine().orElse("").contains("EmbeddedOpenSearchMain"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no embedded OpenSearch child of the node"));
  }

  /** The node's output so far. */
  public String log() throws IOException {
    return Files.readString(log);
  }

  /** Kills the node and its store, if still running, and waits until they have exited. */
  @Override
  public void close() {
    List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
    all.add(process.toHandle());
    all.forEach(ProcessHandle::destroyForcibly);
    await("the node and its store exit").atMost(Duration.ofSeconds(30))
        .until(() -> all.stream().noneMatch(ProcessHandle::isAlive));
  }
}
