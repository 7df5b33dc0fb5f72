package dev.flowpipe.systemtests;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.systemtests.ClientOracle.Outcome;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.StockZeebeBroker;
import java.io.IOException;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The flowpipe server as a user runs it beside a Zeebe cluster: its runnable jar ({@code flowpipe-server-<v>-exec.jar},
 * from server's package) in a JVM of its own with {@code java -jar}, configured by command-line arguments, on a free
 * loopback port. Nothing of the test's class path reaches it.
 */
public final class ServerProcess implements AutoCloseable {

  /** The system property naming the runnable jar (system-tests' surefire sets it). */
  public static final String JAR_PROPERTY = "flowpipe.server.exec-jar";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration READY_WITHIN = Duration.ofMinutes(2);
  /** Longer than the server's own wait for the gateway (the tests give it 10 s), so its answer is what counts. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);

  private final Process process;
  private final int port;
  private final Path log;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private ServerProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts the server from the jar named by {@value #JAR_PROPERTY} with {@code settings} (keys without the leading
   * {@code --}), its output in {@code work}/server.log, and waits until {@code /actuator/health/readiness} is UP.
   */
  public static ServerProcess start(Path work, Map<String, Object> settings) throws IOException {
    Path jar = Path.of(System.getProperty(JAR_PROPERTY, "(unset)"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no server jar at " + jar + " (system property " + JAR_PROPERTY + "; server's "
          + "package builds it)");
    }
    int port = NodeProcess.freePort();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx384m", "-XX:+UseSerialGC"));
    if (!NodeProcess.PROJECT_NODE_JIT.isEmpty()) {
      command.add(NodeProcess.PROJECT_NODE_JIT);
    }
    command.addAll(List.of("-jar", jar.toString()));
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("server.port", port);
    all.putAll(settings);
    all.forEach((key, value) -> command.add("--" + key + "=" + value));
    Files.createDirectories(work);
    Path log = work.resolve("server.log");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    ServerProcess server = new ServerProcess(process, port, log);
    server.awaitReady();
    return server;
  }

  /**
   * The settings of a server beside {@code stock}: its read model in the store at {@code storeUrl} under the cluster's
   * prefix, broker {@code gatewayNode}'s gateway, and every broker's monitoring port by node id; a mutable map the
   * caller adds to.
   */
  public static Map<String, Object> besideTheCluster(StockCluster stock, String storeUrl, int gatewayNode) {
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("flowpipe.store.url", storeUrl);
    settings.put("flowpipe.store.index-prefix", stock.indexPrefix());
    settings.put("flowpipe.server.gateway.address", "127.0.0.1:"
        + stock.cluster().broker(gatewayNode).gateway().getPort());
    for (StockZeebeBroker broker : stock.cluster().brokers()) {
      settings.put("flowpipe.server.flow-control.brokers[" + broker.nodeId() + "].node-id", broker.nodeId());
      settings.put("flowpipe.server.flow-control.brokers[" + broker.nodeId() + "].monitoring-url",
          broker.monitoring());
    }
    return settings;
  }

  private void awaitReady() {
    try {
      await("the server ready at :" + port).atMost(READY_WITHIN).pollInterval(Duration.ofMillis(250))
          .ignoreExceptionsInstanceOf(IOException.class)
          .failFast("the server exited", () -> !process.isAlive())
          .until(() -> get("/actuator/health/readiness").statusCode() == 200);
    } catch (ConditionTimeoutException | org.awaitility.core.TerminalFailureException e) {
      close();
      throw new AssertionError("the server did not become ready within " + READY_WITHIN + ": see its log, " + log, e);
    }
  }

  public int port() {
    return port;
  }

  public URI url(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  public HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(url(path)).timeout(REQUEST_TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** POST a JSON body. */
  public HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
    return http.send(postRequest(path, json), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest postRequest(String path, String json) {
    return HttpRequest.newBuilder(url(path)).timeout(REQUEST_TIMEOUT).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)).build();
  }

  /** The server's {@code GET /actuator/flowControl}: its settings, the cluster's limit, each partition's view. */
  public JsonNode flowControl() throws IOException, InterruptedException {
    HttpResponse<String> answer = get("/actuator/flowControl");
    if (answer.statusCode() != 200) {
      throw new IllegalStateException("the server answered " + answer.statusCode() + " to GET /actuator/flowControl: "
          + answer.body());
    }
    return JSON.readTree(answer.body());
  }

  /**
   * Cancellations through the server's API ({@code POST /v2/process-instances/<key>/cancellation}): 204 confirmed;
   * 404, 409 or 400 refused (the engine did not apply it); any other answer or none unknown.
   */
  public CrashLoad.Canceller canceller() {
    return new CrashLoad.Canceller() {
      @Override
      public String kind() {
        return "cancel through the server";
      }

      @Override
      public CompletableFuture<Answered> cancel(long key) {
        return http.sendAsync(postRequest("/v2/process-instances/" + key + "/cancellation", "{}"),
                HttpResponse.BodyHandlers.ofString())
            .handle((answer, error) -> {
              if (error != null) {
                return new Answered(Outcome.UNKNOWN, error.getClass().getSimpleName());
              }
              return switch (answer.statusCode()) {
                case 204 -> new Answered(Outcome.CONFIRMED, null);
                case 400, 404, 409 -> new Answered(Outcome.REFUSED, "HTTP " + answer.statusCode());
                default -> new Answered(Outcome.UNKNOWN, "HTTP " + answer.statusCode());
              };
            });
      }
    };
  }

  public Path logFile() {
    return log;
  }

  /** SIGTERM (the server shuts down gracefully); SIGKILL if it still runs after 30 s. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
