package dev.flowpipe.opensearch.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.codelibs.opensearch.runner.OpenSearchRunner;
import org.opensearch.http.HttpServerTransport;

/**
 * Runs a single-node OpenSearch in this JVM for a parent process (the node), and ends when the parent does.
 *
 * <p>Protocol with the parent: arguments {@code --base-path DIR --http-port N --transport-port N --cluster-name S};
 * once the cluster is green it prints one line {@value #READY_MARKER}{@code <port>} on stdout. Its stdin is a pipe from
 * the parent: end of input means the parent is gone (also after SIGKILL), and this process closes OpenSearch and exits,
 * so no store is ever left orphaned.
 */
public final class EmbeddedOpenSearchMain {

  public static final String READY_MARKER = "FLOWPIPE-OPENSEARCH-READY http-port=";

  private EmbeddedOpenSearchMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = parse(args);
    String basePath = require(options, "--base-path");
    String httpPort = require(options, "--http-port");
    String transportPort = require(options, "--transport-port");
    String clusterName = options.getOrDefault("--cluster-name", "flowpipe");
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    OpenSearchRunner runner = new OpenSearchRunner();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(runner, stopped), "opensearch-shutdown"));
    startParentWatch(System.in);

    runner.onBuild(
        (index, settings) ->
            settings
                .put("network.host", "127.0.0.1")
                .put("http.port", httpPort)
                .put("transport.port", transportPort)
                // a node on a developer's disk must not turn read-only because the disk is 90% full
                .put("cluster.routing.allocation.disk.threshold_enabled", false)
                .put("http.cors.enabled", false));
    runner.build(
        OpenSearchRunner.newConfigs().basePath(basePath).numOfNode(1).clusterName(clusterName).printOnFailure());
    runner.ensureGreen();
    int boundPort =
        runner.node().injector().getInstance(HttpServerTransport.class).boundAddress().publishAddress().getPort();
    out.println(READY_MARKER + boundPort);
    stopped.await();
  }

  /** Stops this process when the parent closes our stdin (it exited or was killed). */
  private static void startParentWatch(InputStream parentPipe) {
    Thread watch =
        new Thread(
            () -> {
              byte[] buffer = new byte[64];
              try {
                while (parentPipe.read(buffer) >= 0) {
                  // the parent never writes; anything read is ignored
                }
              } catch (IOException ignored) {
                // a broken pipe means the same as end of input
              }
              System.exit(0);
            },
            "parent-watch");
    watch.setDaemon(true);
    watch.start();
  }

  private static void closeQuietly(OpenSearchRunner runner, CountDownLatch stopped) {
    try {
      if (!runner.isClosed()) {
        runner.close();
      }
    } catch (Exception e) {
      System.err.println("closing OpenSearch failed: " + e);
    } finally {
      stopped.countDown();
    }
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      options.put(args[i], args[i + 1]);
    }
    return options;
  }

  private static String require(Map<String, String> options, String name) {
    String value = options.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("missing argument " + name);
    }
    return value;
  }
}
