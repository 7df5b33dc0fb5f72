package dev.flowpipe.elasticsearch.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.elasticsearch.action.admin.cluster.health.ClusterHealthResponse;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.env.Environment;
import org.elasticsearch.http.HttpServerTransport;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.PluginsLoader;
import org.elasticsearch.rest.RestController;

/**
 * Runs a bare single-node Elasticsearch 9 in this JVM for a parent process, and ends when the parent does.
 *
 * <p>Protocol with the parent, the same as the embedded OpenSearch's: arguments {@code --base-path DIR --http-port N
 * --transport-port N --cluster-name S}; once every primary shard has started (yellow or green) it prints one line
 * {@value #READY_MARKER}{@code <port>} on stdout. Its stdin is a pipe from the parent: end of input means the parent is gone (also after SIGKILL),
 * and this process closes Elasticsearch and exits, so no store is ever left orphaned.
 *
 * <p>"Bare" means the server and the one module without which it has no network layer, {@code transport-netty4} (the
 * other modules are not published as artifacts): no x-pack (so no security: plain HTTP without credentials), no painless,
 * reindex, analysis-common, aggregations or mapper-extras modules, and no {@code rest-root}, whose {@code GET /}
 * {@link RootInfoHandler} stands in for. Native access is off (see below).
 */
public final class EmbeddedElasticsearchMain {

  public static final String READY_MARKER = "FLOWPIPE-ELASTICSEARCH-READY http-port=";

  /** The descriptor Elasticsearch's own build puts into the transport-netty4 module jar. */
  private static final String NETTY4_DESCRIPTOR =
      "META-INF/es-plugins/transport-netty4/plugin-descriptor.properties";

  private static final String NODE_NAME = "flowpipe-elasticsearch";

  private static final String LOG4J2_PROPERTIES =
      """
      appender.console.type = Console
      appender.console.name = console
      appender.console.layout.type = PatternLayout
      appender.console.layout.pattern = [%d{ISO8601}][%-5p][%-25c{1.}] [%node_name]%marker %m%n
      rootLogger.level = info
      rootLogger.appenderRef.console.ref = console
      """;

  /**
   * System properties Elasticsearch's launcher sets for every node (they must be set before Netty and Log4j load): no
   * Log4j shutdown hook, so that the node still logs while our hook closes it; Netty without Unsafe and without
   * recyclers, as Elasticsearch runs it. A {@code -D} given on the command line wins.
   */
  private static final Map<String, String> LAUNCHER_PROPERTIES =
      Map.of(
          "log4j.shutdownHookEnabled", "false",
          "log4j2.disable.jmx", "true",
          "log4j2.formatMsgNoLookups", "true",
          "io.netty.noUnsafe", "true",
          "io.netty.noKeySetOptimization", "true",
          "io.netty.recycler.maxCapacityPerThread", "0");

  private EmbeddedElasticsearchMain() {}

  public static void main(String[] args) {
    try {
      run(parse(args));
    } catch (Throwable failure) {
      // Elasticsearch's threads are not daemons: without exit a failed start would leave this JVM running
      failure.printStackTrace();
      System.exit(1);
    }
  }

  private static void run(Map<String, String> options) throws Exception {
    LAUNCHER_PROPERTIES.forEach(
        (key, value) -> {
          if (System.getProperty(key) == null) {
            System.setProperty(key, value);
          }
        });
    Path basePath = Path.of(require(options, "--base-path")).toAbsolutePath();
    String httpPort = require(options, "--http-port");
    String transportPort = require(options, "--transport-port");
    String clusterName = options.getOrDefault("--cluster-name", "flowpipe");
    // taken before Elasticsearch's logging takes over System.err (and may take System.out): the ready line is ours
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    // Elasticsearch's native libraries (libzstd, libvec) ship only in its distribution, not in any artifact: native
    // access stays off (no zstd, so no index.codec best_compression). Naming a directory (empty unless someone puts
    // the distribution's libraries there) makes the start-up warning say so instead of showing a NullPointerException.
    if (System.getProperty("es.nativelibs.path") == null) {
      System.setProperty("es.nativelibs.path", basePath.resolve("native").toString());
    }
    Path configDir = Files.createDirectories(basePath.resolve("config"));
    Path modulesDir = basePath.resolve("modules");
    writeNetty4Module(modulesDir.resolve("transport-netty4"));

    Settings settings =
        Settings.builder()
            .put("path.home", basePath.toString())
            .put("path.data", basePath.resolve("data").toString())
            .put("path.logs", basePath.resolve("logs").toString())
            .put("cluster.name", clusterName)
            .put("node.name", NODE_NAME)
            .put("discovery.type", "single-node")
            .put("network.host", "127.0.0.1")
            .put("http.port", httpPort)
            .put("transport.port", transportPort)
            // a node on a developer's disk must not turn read-only because the disk is 90% full
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .put("http.cors.enabled", false)
            .build();

    Environment environment =
        InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), configDir, () -> NODE_NAME);
    // Elasticsearch's own logging, INFO and up to stdout: the parent keeps what we print in its log file
    Files.writeString(configDir.resolve("log4j2.properties"), LOG4J2_PROPERTIES, StandardCharsets.UTF_8);
    LogConfigurator.registerErrorListener();
    LogConfigurator.setNodeName(NODE_NAME);
    LogConfigurator.setClusterName(clusterName);
    LogConfigurator.configure(environment, true);
    PluginsLoader pluginsLoader =
        PluginsLoader.createPluginsLoader(
            PluginsLoader.loadModulesBundles(environment.modulesDir(), false), Set.of(), Map.of(), false);

    Node node = new Node(environment, pluginsLoader);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> closeQuietly(node, stopped), "elasticsearch-shutdown"));
    startParentWatch(System.in);

    node.injector()
        .getInstance(RestController.class)
        .registerHandler(new RootInfoHandler(NODE_NAME, node.injector().getInstance(ClusterService.class)));
    node.start();
    ClusterHealthResponse health =
        node.client()
            .admin()
            .cluster()
            .prepareHealth(TimeValue.timeValueSeconds(60))
            // yellow, not green: a single node never holds a replica (see the embedded OpenSearch's main)
            .setWaitForYellowStatus()
            .setTimeout(TimeValue.timeValueSeconds(60))
            .get();
    if (health.isTimedOut()) {
      throw new IllegalStateException("Elasticsearch did not start its primary shards (yellow): " + health.getStatus());
    }
    int boundPort =
        node.injector().getInstance(HttpServerTransport.class).boundAddress().publishAddress().getPort();
    out.println(READY_MARKER + boundPort);
    stopped.await();
  }

  /**
   * Lays out {@code modules/transport-netty4} under the base path the way a distribution does: the module jar beside a
   * {@code plugin-descriptor.properties}. The jar comes from {@code modules/transport-netty4/} beside the server jar
   * (where the build copies it, outside the class path: Elasticsearch insists on loading a module's plugin class with
   * the module's own class loader, which never happens while the class path has it). The descriptor is the module's own
   * without {@code modulename}: the server runs on the class path, not as a named module, so the module is loaded the
   * non-modular way, Netty coming from the class path.
   */
  private static void writeNetty4Module(Path moduleDir) throws IOException, URISyntaxException {
    Path serverJar = Path.of(Node.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path shippedDir = serverJar.getParent().resolve("modules").resolve("transport-netty4");
    List<Path> jars;
    try (Stream<Path> files = Files.list(shippedDir)) {
      jars = files.filter(f -> f.getFileName().toString().endsWith(".jar")).toList();
    } catch (NoSuchFileException e) {
      jars = List.of();
    }
    if (jars.size() != 1) {
      throw new IllegalStateException(
          "expected the transport-netty4 module jar (and nothing else) in " + shippedDir + ", found " + jars);
    }
    String descriptor;
    try (ZipFile jar = new ZipFile(jars.get(0).toFile())) {
      ZipEntry entry = jar.getEntry(NETTY4_DESCRIPTOR);
      if (entry == null) {
        throw new IllegalStateException(jars.get(0) + " has no " + NETTY4_DESCRIPTOR);
      }
      try (InputStream in = jar.getInputStream(entry)) {
        descriptor =
            new String(in.readAllBytes(), StandardCharsets.UTF_8)
                .lines()
                .filter(line -> !line.startsWith("modulename="))
                .collect(Collectors.joining("\n", "", "\n"));
      }
    }
    // start from an empty directory: a jar left by an older version would be loaded too
    if (Files.isDirectory(moduleDir)) {
      try (Stream<Path> old = Files.list(moduleDir)) {
        for (Path file : old.toList()) {
          Files.delete(file);
        }
      }
    }
    Files.createDirectories(moduleDir);
    Files.copy(jars.get(0), moduleDir.resolve(jars.get(0).getFileName()));
    Files.writeString(moduleDir.resolve("plugin-descriptor.properties"), descriptor, StandardCharsets.UTF_8);
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

  private static void closeQuietly(Node node, CountDownLatch stopped) {
    try {
      if (!node.isClosed()) {
        node.close();
        node.awaitClose(10, java.util.concurrent.TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      System.err.println("closing Elasticsearch failed: " + e);
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
