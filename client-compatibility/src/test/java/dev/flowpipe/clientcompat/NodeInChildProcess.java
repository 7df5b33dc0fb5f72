package dev.flowpipe.clientcompat;

import static org.awaitility.Awaitility.await;

import dev.flowpipe.testsupport.NodeProcess;
import io.camunda.client.CamundaClient;
import io.camunda.client.CredentialsProvider;
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
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real node run from engine-broker's build output, as {@code ./start-node} runs it, in a process of its own: this
 * module's JVM holds Camunda's 8.8 client, whose protocol classes the node's 8.6 broker cannot share a JVM with
 * (engine-broker's own {@code NodeProcess} is not reachable from here without the node's class path).
 */
final class NodeInChildProcess implements AutoCloseable {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final Process process;
  private final int httpPort;
  private final int gatewayPort;
  private final Path log;

  private NodeInChildProcess(Process process, int httpPort, int gatewayPort, Path log) {
    this.process = process;
    this.httpPort = httpPort;
    this.gatewayPort = gatewayPort;
    this.log = log;
  }

  /** Starts a node on free ports with its data under {@code directory}, these settings added, and waits until ready. */
  static NodeInChildProcess start(Path directory, Map<String, Object> settings) throws IOException {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("flowpipe.data-directory", directory.resolve("data"));
    all.put("server.port", freePort());
    all.put("flowpipe.gateway.port", freePort());
    all.put("flowpipe.broker.command-port", freePort());
    all.put("flowpipe.broker.internal-port", freePort());
    all.put("flowpipe.store.embedded.http-port", freePort());
    all.put("flowpipe.store.embedded.transport-port", freePort());
    all.put("flowpipe.store.embedded.heap", "512MB");
    all.put("flowpipe.store.embedded.classpath", required("flowpipe.store.embedded.classpath"));
    // the node's and its store's JVMs compile with C1 only, as every test's node (NodeProcess.TEST_JIT)
    if (!NodeProcess.TEST_JIT.isEmpty()) {
      all.put("flowpipe.store.embedded.jvm-options", NodeProcess.TEST_JIT);
    }
    all.putAll(settings);
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx768m", NodeProcess.temporaryDirectoryIn(directory)));
    command.addAll(NodeProcess.testJitOptions());
    command.addAll(List.of("-cp", required("flowpipe.node.classpath"), "dev.flowpipe.node.NodeApplication"));
    all.forEach((key, value) -> command.add("--" + key + "=" + value));
    Path log = directory.resolve("node.log");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    NodeInChildProcess node = new NodeInChildProcess(process, (int) all.get("server.port"),
        (int) all.get("flowpipe.gateway.port"), log);
    node.awaitReady();
    return node;
  }

  /**
   * Starts a node as {@link #start} with basic auth, each user (name to password) of the {@code write} role, and bulks
   * written at once.
   */
  static NodeInChildProcess startWithWriters(Path directory, Map<String, String> passwordByUser) throws IOException {
    Map<String, Object> settings = new LinkedHashMap<>(Map.of(
        "flowpipe.exporter.index-refresh-interval", "100ms",
        "flowpipe.exporter.bulk.delay", "50ms",
        "flowpipe.webapp.security.basic-auth", true));
    int index = 0;
    for (Map.Entry<String, String> user : passwordByUser.entrySet()) {
      String prefix = "flowpipe.webapp.security.users[" + index++ + "].";
      settings.put(prefix + "username", user.getKey());
      settings.put(prefix + "password", user.getValue());
      settings.put(prefix + "roles", "write");
    }
    return start(directory, settings);
  }

  /** Camunda's client as {@code user}: REST preferred, at the web app; gRPC at the gateway. */
  CamundaClient client(String user, String password) {
    return client(user, password, true);
  }

  private static String required(String property) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException("system property " + property + " is not set (the module's surefire sets it)");
    }
    return value;
  }

  private void awaitReady() {
    try {
      await("node ready on :" + httpPort).atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(250))
          .ignoreExceptionsInstanceOf(IOException.class) // not listening yet
          .until(() -> {
            if (!process.isAlive()) {
              throw new AssertionError("the node exited early; its log ends:\n" + logTail());
            }
            HttpResponse<String> health = HTTP.send(
                HttpRequest.newBuilder(URI.create(webUrl() + "/actuator/health/readiness")).build(),
                HttpResponse.BodyHandlers.ofString());
            return health.statusCode() == 200 && health.body().contains("\"status\":\"UP\"");
          });
    } catch (ConditionTimeoutException e) {
      close();
      throw new AssertionError("node not ready; its log ends:\n" + logTail(), e);
    }
  }

  /**
   * Camunda's client on this node as {@code user}: REST preferred (the web app), or gRPC (the gateway) for a command
   * the web app does not serve.
   */
  CamundaClient client(String user, String password, boolean preferRest) {
    return CamundaClient.newClientBuilder()
        .restAddress(URI.create(webUrl()))
        .grpcAddress(URI.create(gatewayUrl()))
        .preferRestOverGrpc(preferRest)
        .credentialsProvider(CredentialsProvider.newBasicAuthCredentialsProviderBuilder().username(user)
            .password(password).applyEnvironmentOverrides(false).build())
        .defaultRequestTimeout(Duration.ofSeconds(30))
        .build();
  }

  String webUrl() {
    return "http://127.0.0.1:" + httpPort;
  }

  String gatewayUrl() {
    return "http://127.0.0.1:" + gatewayPort;
  }

  String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int freePort() {
    return NodeProcess.freePort();
  }

  /** Kills the node and its store and waits until they have exited. */
  @Override
  public void close() {
    List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
    all.add(process.toHandle());
    all.forEach(ProcessHandle::destroyForcibly);
    await("the node and its store exit").atMost(Duration.ofSeconds(30))
        .until(() -> all.stream().noneMatch(ProcessHandle::isAlive));
  }
}
