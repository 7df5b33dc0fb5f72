package dev.flowpipe.testsupport;

import static org.awaitility.Awaitility.await;

import io.camunda.zeebe.client.ZeebeClient;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real node in a process of its own (so it can be killed with SIGKILL, frozen with SIGSTOP, stopped with SIGTERM),
 * on free ports, with its data in a directory the caller owns and its output in a log file. The embedded store is its
 * child process. Two ways to launch one: from a test's own class path ({@link #start(Path, Map)}, the product's
 * tests) or from the built class path under a project root ({@link #start(Path, Path, List)}, the scenarios and the
 * system tests); a node launched by the latter deletes its data when closed (a scenario's node is fresh each time).
 */
public final class NodeProcess implements AutoCloseable {

  /** The class the node runs; a name, not a class, so that this module does not depend on the node's. */
  private static final String NODE_MAIN = "dev.flowpipe.node.NodeApplication";
  /**
   * A bound, not a retry: a node starts in 25-40 s on a quiet machine, but beside the suite's three-broker cluster
   * classes its embedded store alone took 89 s to start, and the node was ready after 118 s (clean-clone CI ci-c,
   * DistributionArchiveIT, just past the earlier 120 s).
   */
  private static final Duration READY_WITHIN = Duration.ofSeconds(180);
  /**
   * The JIT option of a test's node and store JVMs (a product test's node, never a scenario's, whose figures must be the
   * product's): C1 only. A node of a test lives for seconds to a minute, most of it starting; without C2's compiler
   * threads a node process was ready in 42% less time on two busy cores (three alternating rounds at load averages of
   * 26-48: 107-142 s, mean 124 s, against 51-95 s, mean 72 s). {@code -Dflowpipe.test-node.jit=} (empty) runs them
   * with the JVM's default JIT.
   */
  public static final String TEST_JIT = System.getProperty("flowpipe.test-node.jit", "-XX:TieredStopAtLevel=1");

  /** {@link #TEST_JIT} as JVM options for a test's own child JVM (a store, an importer): none when it is empty. */
  public static List<String> testJitOptions() {
    return TEST_JIT.isEmpty() ? List.of() : List.of(TEST_JIT);
  }

  /**
   * A JIT option for nodes launched from a built project (below): none by default, so that benchmark scenarios run the
   * product's JVM as shipped; the system tests set it (their surefire configuration) to C1 only, as {@link #TEST_JIT}.
   */
  public static final String PROJECT_NODE_JIT = System.getProperty("flowpipe.project-node.jit", "");
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final Pattern STORE_URL = Pattern.compile("\"url\":\"([^\"]+)\"");

  /** The ports a node listens on (its own and its embedded store's); a node restarted on the same ones is found again. */
  public record Ports(int http, int gateway, int command, int internal, int storeHttp, int storeTransport) {
    public static Ports free() {
      return new Ports(freePort(), freePort(), freePort(), freePort(), freePort(), freePort());
    }

    Map<String, Object> settings() {
      Map<String, Object> settings = new LinkedHashMap<>();
      settings.put("server.port", http);
      settings.put("flowpipe.gateway.port", gateway);
      settings.put("flowpipe.broker.command-port", command);
      settings.put("flowpipe.broker.internal-port", internal);
      settings.put("flowpipe.store.embedded.http-port", storeHttp);
      settings.put("flowpipe.store.embedded.transport-port", storeTransport);
      return settings;
    }
  }

  private final Process process;
  private final Ports ports;
  private final Path log;
  /** The data directory to delete on {@link #close()}, or null to keep it. */
  private final Path scratchData;

  private NodeProcess(Process process, Ports ports, Path log, Path scratchData) {
    this.process = process;
    this.ports = ports;
    this.log = log;
    this.scratchData = scratchData;
  }

  // ---- launched from a test's class path, data in a directory the test owns

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

  /**
   * As {@link #launch(Path, Map)}, with these jars on the node's class path too (e.g. another exporter's). The node's
   * JVM and its store's compile with C1 only ({@link #TEST_JIT}) unless {@code settings} give the store other options.
   */
  public static NodeProcess launch(Path data, Map<String, Object> settings, List<Path> extraJars) throws IOException {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("flowpipe.store.embedded.classpath", System.getProperty("flowpipe.store.embedded.classpath"));
    if (!TEST_JIT.isEmpty()) {
      all.put("flowpipe.store.embedded.jvm-options", TEST_JIT);
    }
    all.putAll(settings);
    List<String> entries = new ArrayList<>(shippedClasspath());
    extraJars.forEach(jar -> entries.add(jar.toString()));
    List<String> java = new ArrayList<>(List.of(javaCommand(), "-Xmx768m", temporaryDirectoryIn(data)));
    if (!TEST_JIT.isEmpty()) {
      java.add(TEST_JIT);
    }
    java.addAll(List.of("-cp", String.join(File.pathSeparator, entries), NODE_MAIN));
    return launch(java, Map.of(), data, all);
  }

  /**
   * The test's class path as the node ships: without {@code identity-sdk} (proprietary licence), which is there only
   * because the broker's code names it at compile time. A node that needed it would fail to start in every test.
   */
  public static List<String> shippedClasspath() {
    return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(entry -> !entry.contains("identity-sdk")).toList();
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
    Ports ports = Ports.free();
    all.putAll(ports.settings());
    all.put("flowpipe.store.embedded.heap", "512MB");
    all.putAll(settings);
    Files.createDirectories(data);
    Path log = Files.createTempFile(data.getParent(), "node", ".log");
    List<String> arguments = new ArrayList<>(command);
    all.forEach((key, value) -> arguments.add("--" + key + "=" + value));
    ProcessBuilder builder = new ProcessBuilder(arguments).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().putAll(environment);
    Ports actual = new Ports(Integer.parseInt(String.valueOf(all.get("server.port"))),
        Integer.parseInt(String.valueOf(all.get("flowpipe.gateway.port"))), ports.command(), ports.internal(),
        ports.storeHttp(), ports.storeTransport());
    return new NodeProcess(builder.start(), actual, log, null);
  }

  // ---- launched from the built class path under a project root, in a work directory of its own

  public static NodeProcess start(Path root, Path workDir, List<String> extraArgs) throws Exception {
    return start(root, workDir, extraArgs, null);
  }

  /** As {@link #start(Path, Path, List)}, with further class path entries (e.g. a stock exporter and its jars). */
  public static NodeProcess start(Path root, Path workDir, List<String> extraArgs, String extraClasspath)
      throws Exception {
    return start(root, workDir, Ports.free(), extraArgs, extraClasspath);
  }

  /**
   * As {@link #start(Path, Path, List, String)}, on the given ports; on a directory a killed node left, this is its
   * restart (the node's log goes on in the same file).
   */
  public static NodeProcess start(Path root, Path workDir, Ports ports, List<String> extraArgs, String extraClasspath)
      throws Exception {
    NodeProcess node = launch(root, workDir, ports, extraArgs, extraClasspath);
    node.awaitReady();
    return node;
  }

  /**
   * As {@link #start(Path, Path, Ports, List, String)} without waiting until the node is ready: the nodes of a
   * cluster become ready only together. Call {@link #awaitReady()} before using it.
   */
  public static NodeProcess launch(Path root, Path workDir, Ports ports, List<String> extraArgs,
      String extraClasspath) throws IOException {
    return launch(root, workDir, ports, List.of(), extraArgs, extraClasspath);
  }

  /**
   * As {@link #launch(Path, Path, Ports, List, String)}, the node's command run by {@code wrapper} (a command that
   * ends by executing its arguments in its own process, e.g. to give the node a view of the system of its own).
   */
  public static NodeProcess launch(Path root, Path workDir, Ports ports, List<String> wrapper, List<String> extraArgs,
      String extraClasspath) throws IOException {
    Files.createDirectories(workDir);
    Path log = workDir.resolve("node.log");
    List<String> command = new ArrayList<>(wrapper);
    command.addAll(List.of(javaCommand(), "-Xmx1g", "--enable-native-access=ALL-UNNAMED",
        temporaryDirectoryIn(workDir)));
    boolean projectJit = !PROJECT_NODE_JIT.isEmpty();
    if (projectJit) {
      command.add(PROJECT_NODE_JIT);
    }
    command.addAll(List.of(
        "-cp", root.resolve("engine-broker/target/classes") + ":" + root.resolve("engine-broker/target/lib") + "/*"
            + (extraClasspath == null || extraClasspath.isEmpty() ? "" : ":" + extraClasspath),
        NODE_MAIN));
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("flowpipe.data-directory", workDir.resolve("data"));
    settings.putAll(ports.settings());
    settings.put("flowpipe.store.embedded.classpath", embeddedStoreClasspath(root));
    if (projectJit && extraArgs.stream().noneMatch(arg -> arg.startsWith("--flowpipe.store.embedded.jvm-options="))) {
      settings.put("flowpipe.store.embedded.jvm-options", PROJECT_NODE_JIT);
    }
    settings.forEach((key, value) -> command.add("--" + key + "=" + value));
    command.addAll(extraArgs);
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    // a run killed from outside (timeout, Ctrl-C) must not leave the node and its store running
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      process.descendants().forEach(ProcessHandle::destroy);
      process.destroy();
    }));
    return new NodeProcess(process, ports, log, workDir.resolve("data"));
  }

  /**
   * The JVM option that puts a node's temporary files (RocksDB's native library, 14 MB a JVM, and Tomcat's work
   * directories) under {@code directory}: a killed node never deletes them, and in the system's temporary directory
   * they filled a CI machine's disk past the store's watermarks over many runs.
   */
  public static String temporaryDirectoryIn(Path directory) throws IOException {
    return "-Djava.io.tmpdir=" + Files.createDirectories(directory.resolve("tmp"));
  }

  /** The embedded OpenSearch child's class path in a built project under {@code root}. */
  public static String embeddedStoreClasspath(Path root) {
    return root.resolve("embedded-opensearch/target/classes") + ":"
        + root.resolve("embedded-opensearch/target/child-classpath") + "/*";
  }

  private static String javaCommand() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  // ---- waiting and asking

  /** Waits until the node reports ready (readiness includes the store); stops it and fails, naming its log, if not. */
  public NodeProcess awaitReady() {
    return awaitReady("/actuator/health/readiness");
  }

  /**
   * Waits until the health group or component at {@code healthPath} is UP (readiness includes the store; a node
   * whose store is down is still a working broker at {@code /actuator/health/broker}).
   */
  public NodeProcess awaitReady(String healthPath) {
    return awaitReady(healthPath, READY_WITHIN);
  }

  /** As {@link #awaitReady(String)}, waiting up to {@code timeout} (a machine shared by many builds starts slowly). */
  public NodeProcess awaitReady(String healthPath, Duration timeout) {
    try {
      await("node up at :" + ports.http() + healthPath).atMost(timeout).pollInterval(Duration.ofMillis(200))
          .ignoreExceptionsInstanceOf(IOException.class) // not listening yet
          .until(() -> isUp(healthPath));
    } catch (ConditionTimeoutException | AssertionError e) {
      close();
      throw new AssertionError("node not up at :" + ports.http() + healthPath + " (log " + log + "); its log ends:\n"
          + logTail(), e);
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
      return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports.http() + path))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** The body of a GET on the node's HTTP port, whatever its status. */
  public String text(String path) throws IOException {
    return get(path).body();
  }

  /** The store's URL, as the node's health report names it. */
  public String storeUrl() throws IOException {
    Matcher url = STORE_URL.matcher(text("/actuator/health"));
    if (!url.find()) {
      throw new IllegalStateException("no store URL in the health report");
    }
    return url.group(1);
  }

  public ZeebeClient client() {
    return ZeebeClient.newClientBuilder().grpcAddress(gateway()).usePlaintext()
        .defaultRequestTimeout(Duration.ofSeconds(20)).build();
  }

  public URI gateway() {
    return URI.create("http://127.0.0.1:" + ports.gateway());
  }

  public int httpPort() {
    return ports.http();
  }

  public Ports ports() {
    return ports;
  }

  public long pid() {
    return process.pid();
  }

  /** The file the node's output goes to. */
  public Path logFile() {
    return log;
  }

  /** The node's output so far. */
  public String log() throws IOException {
    return Files.readString(log);
  }

  public String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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

  // ---- stopping

  /**
   * Freezes the node and its store (SIGSTOP to the node and every descendant), so that it takes no CPU while another
   * node is measured, and returns once each of them shows as stopped; {@link #resume()} lets it go on where it stopped.
   */
  public void pause() throws IOException {
    awaitState(signal("-STOP"), true);
  }

  public void resume() throws IOException {
    awaitState(signal("-CONT"), false);
  }

  private List<Long> signal(String signal) throws IOException {
    List<Long> pids = new ArrayList<>(List.of(process.pid()));
    process.descendants().forEach(child -> pids.add(child.pid()));
    return signal(signal, pids);
  }

  /** Sends {@code signal} to each of {@code pids} with {@code kill}; fails naming the command and its answer. */
  public static List<Long> signal(String signal, List<Long> pids) throws IOException {
    List<String> command = new ArrayList<>(List.of("kill", signal));
    pids.forEach(pid -> command.add(Long.toString(pid)));
    Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(kill.getInputStream().readAllBytes());
    try {
      if (kill.waitFor() != 0) {
        throw new IOException("'" + String.join(" ", command) + "' failed: " + output.strip());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    return pids;
  }

  /** A signal is delivered asynchronously: waits (up to 10 s) until /proc shows each process stopped, or not. */
  private static void awaitState(List<Long> pids, boolean stopped) {
    for (long pid : pids) {
      Path stat = Path.of("/proc/" + pid + "/stat");
      await("process " + pid + (stopped ? " stops" : " continues")).atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(5)).until(() -> hasState(stat, stopped));
    }
  }

  private static boolean hasState(Path stat, boolean stopped) {
    try {
      String text = Files.readString(stat);
      return (text.charAt(text.lastIndexOf(')') + 2) == 'T') == stopped;
    } catch (IOException e) {
      return true; // the process ended meanwhile
    }
  }

  /**
   * A crash: SIGKILL to the node's JVM alone (no shutdown hook runs, nothing is flushed), then waits until it has
   * exited and its embedded store, which notices that its node is gone and stops itself, has too. The data stays for
   * a restart.
   */
  public void kill() throws InterruptedException {
    List<ProcessHandle> children = process.descendants().toList();
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("node " + process.pid() + " still running 30 s after SIGKILL");
    }
    // a restart on the same data must wait for the store
    await("the store of the killed node " + process.pid() + " exits (log " + log + ")").atMost(Duration.ofSeconds(60))
        .until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
  }

  /**
   * A stop as a service manager or Ctrl-C makes it: SIGTERM, then waits (up to 60 s) until the node and its store have
   * shut down;
   * unlike {@link #close()} the data stays for a restart.
   */
  public void terminate() throws InterruptedException {
    if (!terminate(Duration.ofSeconds(60))) {
      throw new IllegalStateException("node " + process.pid() + " still running 60 s after SIGTERM; see " + log);
    }
  }

  /**
   * SIGTERM; true when the node and its embedded store exited within {@code timeout} (a restart on the same data and
   * ports must not meet the store still holding them).
   */
  public boolean terminate(Duration timeout) throws InterruptedException {
    List<ProcessHandle> children = process.descendants().toList();
    long deadline = System.nanoTime() + timeout.toNanos();
    process.destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return false;
    }
    for (ProcessHandle child : children) {
      long left = deadline - System.nanoTime();
      try {
        child.onExit().get(Math.max(0, left), TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException notExited) {
        return false;
      }
    }
    return true;
  }

  /**
   * Kills the node and its store, if still running, and waits until they have exited; a node launched under a
   * project root also loses its data (broker log and store, up to GBs, of no use once it has stopped).
   */
  @Override
  public void close() {
    List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
    all.add(process.toHandle());
    all.forEach(ProcessHandle::destroyForcibly); // SIGKILL reaches a frozen (SIGSTOP) process too
    await("the node and its store exit").atMost(Duration.ofSeconds(30))
        .until(() -> all.stream().noneMatch(ProcessHandle::isAlive));
    if (scratchData != null) {
      ScratchDirectories.deleteTree(scratchData);
    }
  }

  public static int freePort() {
    // below the kernel's ephemeral range (32768 and up): a port the kernel hands out for port 0 is also what it hands
    // out to outgoing connections, so between this check and the process binding it, a connection may take it (seen:
    // a stock broker failing with "Port ... was already in use"); never the same port twice in this JVM
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = 20_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(12_000);
      if (HANDED_OUT.add(port) && bindable(port)) {
        return port;
      }
    }
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new java.net.InetSocketAddress("0.0.0.0", port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
