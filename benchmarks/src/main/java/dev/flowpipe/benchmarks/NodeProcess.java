package dev.flowpipe.benchmarks;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node started the way a user starts it (its own JVM, the built class path), on free ports and a fresh data
 * directory, for one benchmark run; or, after {@link #kill()}, again on the same directory and ports.
 */
final class NodeProcess implements AutoCloseable {

  /** The ports a node listens on (its own and its embedded store's); a node restarted on the same ones is found again. */
  record Ports(int http, int gateway, int command, int internal, int storeHttp, int storeTransport) {
    static Ports free() throws IOException {
      return new Ports(freePort(), freePort(), freePort(), freePort(), freePort(), freePort());
    }
  }

  private final Process process;
  private final Ports ports;
  private final Path log;

  private NodeProcess(Process process, Ports ports, Path log) {
    this.process = process;
    this.ports = ports;
    this.log = log;
  }

  static NodeProcess start(Path root, Path workDir, List<String> extraArgs) throws Exception {
    return start(root, workDir, extraArgs, null);
  }

  /** As {@link #start(Path, Path, List)}, with further class path entries (e.g. a stock exporter and its jars). */
  static NodeProcess start(Path root, Path workDir, List<String> extraArgs, String extraClasspath) throws Exception {
    return start(root, workDir, Ports.free(), extraArgs, extraClasspath);
  }

  /**
   * As {@link #start(Path, Path, List, String)}, on the given ports; on a directory a killed node left, this is its
   * restart (the node's log goes on in the same file).
   */
  static NodeProcess start(Path root, Path workDir, Ports ports, List<String> extraArgs, String extraClasspath)
      throws Exception {
    NodeProcess node = launch(root, workDir, ports, extraArgs, extraClasspath);
    node.awaitReady();
    return node;
  }

  /**
   * As {@link #start(Path, Path, Ports, List, String)} without waiting until the node is ready: the nodes of a cluster
   * become ready only together. Call {@link #awaitReady()} before using it.
   */
  static NodeProcess launch(Path root, Path workDir, Ports ports, List<String> extraArgs, String extraClasspath)
      throws IOException {
    return launch(root, workDir, ports, List.of(), extraArgs, extraClasspath);
  }

  /**
   * As {@link #launch(Path, Path, Ports, List, String)}, the node's command run by {@code wrapper} (a command that
   * ends by executing its arguments in its own process, e.g. to give the node a view of the system of its own).
   */
  static NodeProcess launch(Path root, Path workDir, Ports ports, List<String> wrapper, List<String> extraArgs,
      String extraClasspath) throws IOException {
    Files.createDirectories(workDir);
    Path log = workDir.resolve("node.log");
    List<String> command = new ArrayList<>(wrapper);
    command.addAll(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx1g",
        "--enable-native-access=ALL-UNNAMED",
        "-cp", root.resolve("engine-broker/target/classes") + ":" + root.resolve("engine-broker/target/lib") + "/*"
            + (extraClasspath == null || extraClasspath.isEmpty() ? "" : ":" + extraClasspath),
        "dev.flowpipe.node.NodeApplication",
        "--flowpipe.data-directory=" + workDir.resolve("data"),
        "--server.port=" + ports.http(),
        "--flowpipe.gateway.port=" + ports.gateway(),
        "--flowpipe.broker.command-port=" + ports.command(),
        "--flowpipe.broker.internal-port=" + ports.internal(),
        "--flowpipe.store.embedded.http-port=" + ports.storeHttp(),
        "--flowpipe.store.embedded.transport-port=" + ports.storeTransport(),
        "--flowpipe.store.embedded.classpath=" + root.resolve("embedded-opensearch/target/classes") + ":"
            + root.resolve("embedded-opensearch/target/child-classpath") + "/*"));
    command.addAll(extraArgs);
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    NodeProcess node = new NodeProcess(process, ports, log);
    // a run killed from outside (timeout, Ctrl-C) must not leave the node and its store running
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      process.descendants().forEach(ProcessHandle::destroy);
      process.destroy();
    }));
    return node;
  }

  /** Waits (up to 120 s) until the node reports ready; stops it and fails, naming its log, if it does not. */
  void awaitReady() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!ready()) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        close();
        throw new IllegalStateException("node did not become ready; see " + log);
      }
      Thread.sleep(200);
    }
  }

  private boolean ready() {
    try {
      return get("/actuator/health/readiness").contains("\"status\":\"UP\"");
    } catch (Exception e) {
      return false;
    }
  }

  String get(String path) throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports.http() + path)).timeout(Duration.ofSeconds(5))
                .build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** The store URL from the node's health report. */
  String storeUrl() throws IOException, InterruptedException {
    Matcher url = Pattern.compile("\"url\":\"([^\"]+)\"").matcher(get("/actuator/health"));
    if (!url.find()) {
      throw new IllegalStateException("no store URL in the health report");
    }
    return url.group(1);
  }

  URI gateway() {
    return URI.create("http://127.0.0.1:" + ports.gateway());
  }

  int httpPort() {
    return ports.http();
  }

  Ports ports() {
    return ports;
  }

  Path log() {
    return log;
  }

  long pid() {
    return process.pid();
  }

  /**
   * Freezes the node and its store (SIGSTOP to the node and every descendant), so that it takes no CPU while another
   * node is measured, and returns once each of them shows as stopped; {@link #resume()} lets it go on where it stopped.
   */
  void pause() throws IOException, InterruptedException {
    awaitState(signal("-STOP"), true);
  }

  void resume() throws IOException, InterruptedException {
    awaitState(signal("-CONT"), false);
  }

  private List<Long> signal(String signal) throws IOException, InterruptedException {
    List<Long> pids = new ArrayList<>(List.of(process.pid()));
    process.descendants().forEach(child -> pids.add(child.pid()));
    return signal(signal, pids);
  }

  /** Sends {@code signal} to each of {@code pids} with {@code kill}; fails naming the command and its answer. */
  static List<Long> signal(String signal, List<Long> pids) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("kill", signal));
    pids.forEach(pid -> command.add(Long.toString(pid)));
    Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(kill.getInputStream().readAllBytes());
    if (kill.waitFor() != 0) {
      throw new IOException("'" + String.join(" ", command) + "' failed: " + output.strip());
    }
    return pids;
  }

  /** A signal is delivered asynchronously: waits (up to 10 s) until /proc shows each process stopped, or not. */
  private static void awaitState(List<Long> pids, boolean stopped) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (long pid : pids) {
      Path stat = Path.of("/proc/" + pid + "/stat");
      while (Files.exists(stat)) {
        String text;
        try {
          text = Files.readString(stat);
        } catch (IOException e) {
          break; // the process ended meanwhile
        }
        if ((text.charAt(text.lastIndexOf(')') + 2) == 'T') == stopped) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IOException("process " + pid + " did not " + (stopped ? "stop" : "continue") + " within 10 s");
        }
        Thread.sleep(5);
      }
    }
  }

  /**
   * A crash: SIGKILL to the node's JVM alone (no shutdown hook runs), then waits until it has exited and its embedded
   * store, which notices that its node is gone and stops itself, has too. The data stays for a restart.
   */
  void kill() throws InterruptedException {
    List<ProcessHandle> children = process.descendants().toList();
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("node " + process.pid() + " still running 30 s after SIGKILL");
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (ProcessHandle child : children) {
      while (child.isAlive()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("process " + child.pid() + " of the killed node (its store) still running "
              + "60 s later; see " + log);
        }
        Thread.sleep(50);
      }
    }
  }

  /**
   * A stop as a service manager or Ctrl-C makes it: SIGTERM, then waits (up to 60 s) until the node has shut down;
   * unlike {@link #close()} the data stays for a restart.
   */
  void terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("node " + process.pid() + " still running 60 s after SIGTERM; see " + log);
    }
  }

  @Override
  public void close() throws InterruptedException {
    try {
      resume(); // a stopped JVM would not act on SIGTERM
    } catch (IOException e) {
      // already gone: nothing to resume
    }
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    // every benchmark node is fresh: its data (broker log and store, up to GBs) is of no use once it has stopped
    ScratchDirectories.deleteTree(log.getParent().resolve("data"));
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
