package dev.flowpipe.opensearch.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.codelibs.opensearch.runner.OpenSearchRunner;
import org.opensearch.http.HttpServerTransport;

/**
 * Runs a single-node OpenSearch in this JVM for a parent process (the node), and ends when the parent does.
 *
 * <p>Protocol with the parent: arguments {@code --base-path DIR --http-port N --transport-port N --cluster-name S}, and
 * any number of {@code --setting key=value} (the disk watermarks: {@code cluster.routing.allocation.disk.watermark.*});
 * once every primary shard has started (yellow or green) it prints one line {@value #READY_MARKER}{@code <port>} on
 * stdout. Its stdin is a pipe from
 * the parent: end of input means the parent is gone (also after SIGKILL), and this process closes OpenSearch and exits,
 * so no store is ever left orphaned.
 */
public final class EmbeddedOpenSearchMain {

  public static final String READY_MARKER = "FLOWPIPE-OPENSEARCH-READY http-port=";

  private EmbeddedOpenSearchMain() {}

  /**
   * How often OpenSearch reads its disk usage and applies or lifts the flood-stage block: the least it accepts (its
   * default is 30s), so the block follows the disk within seconds.
   */
  static final String DISK_CHECK_INTERVAL = "10s";

  public static void main(String[] args) throws Exception {
    List<String> extraSettings = new ArrayList<>();
    Map<String, String> options = parse(args, extraSettings);
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
                // the watermarks (from the parent) apply: at the flood stage writes are refused with 429 until usage
                // is back below the high watermark, instead of the store writing until the disk is full
                .put("cluster.routing.allocation.disk.threshold_enabled", true)
                .put("cluster.info.update.interval", DISK_CHECK_INTERVAL)
                .put("http.cors.enabled", false)
                .put(extraSettings(extraSettings)));
    runner.build(
        OpenSearchRunner.newConfigs().basePath(basePath).numOfNode(1).clusterName(clusterName).printOnFailure());
    // yellow, not green: a single node never holds a replica, so one index that asks for one (a user's, or a batch
    // index an older version created) would keep the cluster from green and hold every start for the runner's 30 s
    runner.ensureYellow();
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

  /** The options by name; each {@code --setting key=value} goes to {@code settings}. */
  private static Map<String, String> parse(String[] args, List<String> settings) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if ("--setting".equals(args[i])) {
        settings.add(args[i + 1]);
      } else {
        options.put(args[i], args[i + 1]);
      }
    }
    return options;
  }

  private static org.opensearch.common.settings.Settings extraSettings(List<String> settings) {
    var builder = org.opensearch.common.settings.Settings.builder();
    for (String setting : settings) {
      int equals = setting.indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException("--setting must be key=value, was '" + setting + "'");
      }
      builder.put(setting.substring(0, equals), setting.substring(equals + 1));
    }
    return builder.build();
  }

  private static String require(Map<String, String> options, String name) {
    String value = options.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("missing argument " + name);
    }
    return value;
  }
}
