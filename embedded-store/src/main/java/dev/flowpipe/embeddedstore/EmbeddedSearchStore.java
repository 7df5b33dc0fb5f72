package dev.flowpipe.embeddedstore;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs OpenSearch (or, for tests, Elasticsearch) in a child JVM with its data under the node's data directory, and makes
 * sure it never outlives the node: the child watches the pipe on its stdin and exits when the node closes it, which the operating system also
 * does when the node is killed. Its output goes to {@code opensearch.log} (or {@code elasticsearch.log}) in its directory.
 *
 * <p>Once it was green, the child is supervised: when it dies it is started again with the same command (data
 * directory and ports), after the waits of its {@link RestartPolicy}, on the given scheduler; {@link #status()} says
 * whether it is up, restarting or given up on, how often it was restarted and how it last exited. A child that dies
 * before it was first green fails {@link #awaitReady()} instead: that is a configuration to fix, not a crash.
 */
public final class EmbeddedSearchStore implements AutoCloseable {

  /** The highest niceness Linux and macOS accept. */
  public static final int MAX_NICENESS = 19;

  /** The engines that can run as a child: each module's main class and the line it prints once green. */
  public enum Engine {
    OPENSEARCH(
        "OpenSearch",
        "dev.flowpipe.opensearch.embedded.EmbeddedOpenSearchMain",
        "FLOWPIPE-OPENSEARCH-READY http-port=",
        "flowpipe.store.embedded.classpath"),
    ELASTICSEARCH(
        "Elasticsearch",
        "dev.flowpipe.elasticsearch.embedded.EmbeddedElasticsearchMain",
        "FLOWPIPE-ELASTICSEARCH-READY http-port=",
        "flowpipe.store.embedded.elasticsearch-classpath");

    final String displayName;
    final String mainClass;
    final String readyMarker;
    /** The system property (and node setting) holding the child's class path. */
    public final String classpathProperty;

    Engine(String displayName, String mainClass, String readyMarker, String classpathProperty) {
      this.displayName = displayName;
      this.mainClass = mainClass;
      this.readyMarker = readyMarker;
      this.classpathProperty = classpathProperty;
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedSearchStore.class);

  private final int httpPort;
  private final Settings properties;
  private final List<String> command;
  private final Path logFile;
  private final Clock clock;
  private final ScheduledExecutorService scheduler;
  private final boolean ownsScheduler;
  private final CompletableFuture<Integer> ready;
  private final Deque<String> lastLines = new ArrayDeque<>();
  private final RestartBackoff backoff;
  // the supervisor's state; written under the lock, read by status() under it
  private volatile Process process;
  private State state = State.STARTING;
  private boolean supervised;
  private boolean closing;
  private Integer lastExitCode;
  private Instant lastExitAt;
  private Instant nextAttemptAt;
  private String reason;
  private ScheduledFuture<?> pendingRestart;

  /** Where the child stands. */
  public enum State {
    /** Launched, not green yet. */
    STARTING,
    /** Green (and supervised). */
    UP,
    /** It died; a restart is scheduled or booting. */
    RESTARTING,
    /** It died and the restart attempts are exhausted (or restarting is off). */
    GAVE_UP,
    /** Closed by the node. */
    STOPPED
  }

  /**
   * What the supervisor knows, for health.
   *
   * @param state where the child stands
   * @param pid the current (or last) child's process id
   * @param restarts restarts begun since the node started the store
   * @param attemptsInARow restarts in the current series (see {@link RestartPolicy#resetAfter()})
   * @param lastExitCode how the child last died (137: killed by SIGKILL), null if it never did
   * @param lastExitAt when it last died, null if it never did
   * @param nextAttemptAt when the next restart begins, while one is scheduled
   * @param reason why it is not up, null while it is
   */
  public record Status(State state, long pid, int restarts, int attemptsInARow, Integer lastExitCode,
      Instant lastExitAt, Instant nextAttemptAt, String reason) {}

  /**
   * How to run the child.
   *
   * @param httpPort HTTP port on 127.0.0.1, 0 for any free one
   * @param transportPort transport port on 127.0.0.1, 0 for any free one
   * @param heapMegabytes the child's heap
   * @param startTimeout how long to wait for green
   * @param stopTimeout how long to wait for a clean stop before killing
   * @param classpath the child's class path (embedded-opensearch's classes and jars)
   * @param javaHome JDK to run it with, null for the one running this JVM
   * @param niceness the child's scheduling niceness, 0 (as the parent) to 19 (runs only on CPU the parent leaves): on a
   *     machine the store shares with the engine, a positive value lets the engine's threads run first, and the store
   *     catches up in larger bulks
   * @param jvmOptions further options for the child's JVM (GC logging, another collector, ...), after the heap; one
   *     that selects a collector ({@code -XX:+Use...GC}) replaces the default G1. The heap and the class path are
   *     set by the other settings and refused here
   * @param watermarks the store's disk watermarks (it refuses writes above the flood stage)
   * @param restart how the child is started again when it dies
   */
  public record Settings(
      Engine engine,
      int httpPort,
      int transportPort,
      long heapMegabytes,
      Duration startTimeout,
      Duration stopTimeout,
      String classpath,
      String javaHome,
      int niceness,
      List<String> jvmOptions,
      DiskWatermarks watermarks,
      RestartPolicy restart) {

    public Settings {
      watermarks = watermarks == null ? DiskWatermarks.DEFAULTS : watermarks;
      restart = restart == null ? RestartPolicy.DEFAULTS : restart;
      checkNiceness("niceness", niceness);
      jvmOptions = checkJvmOptions("", jvmOptions);
    }


    /** For tests: free ports, a small heap, the class path from the system property the build sets. */
    public static Settings forTests(Engine engine) {
      return new Settings(engine, 0, 0, 512, Duration.ofSeconds(90), Duration.ofSeconds(15),
          System.getProperty(engine.classpathProperty), null, 0, List.of(), null, null);
    }

    /** The same settings with another niceness. */
    public Settings withNiceness(int value) {
      return new Settings(engine, httpPort, transportPort, heapMegabytes, startTimeout, stopTimeout, classpath,
          javaHome, value, jvmOptions, watermarks, restart);
    }

    /** The same settings with other further JVM options. */
    public Settings withJvmOptions(List<String> options) {
      return new Settings(engine, httpPort, transportPort, heapMegabytes, startTimeout, stopTimeout, classpath,
          javaHome, niceness, options, watermarks, restart);
    }

    /** The same settings with other disk watermarks. */
    public Settings withWatermarks(DiskWatermarks value) {
      return new Settings(engine, httpPort, transportPort, heapMegabytes, startTimeout, stopTimeout, classpath,
          javaHome, niceness, jvmOptions, value, restart);
    }

    /** The same settings with another restart policy. */
    public Settings withRestart(RestartPolicy value) {
      return new Settings(engine, httpPort, transportPort, heapMegabytes, startTimeout, stopTimeout, classpath,
          javaHome, niceness, jvmOptions, watermarks, value);
    }

    /** Whether one of the options chooses the garbage collector, so that the default G1 must not be given too. */
    boolean choosesCollector() {
      return jvmOptions.stream().anyMatch(option -> COLLECTOR.matcher(option).matches());
    }

    public static Settings forTests() {
      return forTests(Engine.OPENSEARCH);
    }
  }


  /** A JVM option that selects a collector: two selected collectors stop the JVM before it starts. */
  private static final Pattern COLLECTOR = Pattern.compile("-XX:\\+Use\\w+GC");

  /** Options that other settings own, by the setting: given twice, the reader would have to guess which one wins. */
  private static final Map<String, List<String>> OWNED_OPTIONS = Map.of(
      "heap", List.of("-Xmx", "-Xms", "-XX:MaxHeapSize", "-XX:InitialHeapSize"),
      "classpath", List.of("-cp", "-classpath", "--class-path"));

  /** The niceness rule, for every reader of it: 0 to {@link #MAX_NICENESS}, or a message naming {@code key}. */
  public static int checkNiceness(String key, int niceness) {
    if (niceness < 0 || niceness > MAX_NICENESS) {
      throw new IllegalArgumentException(key + " must be 0 to " + MAX_NICENESS + ", was " + niceness);
    }
    return niceness;
  }

  /**
   * The options, checked: each starts with '-', and none sets what another setting owns. {@code prefix} is put before
   * the setting names in the message (e.g. {@code flowpipe.store.embedded.}).
   */
  public static List<String> checkJvmOptions(String prefix, List<String> options) {
    if (options == null) {
      return List.of();
    }
    for (String option : options) {
      if (option == null || !option.startsWith("-")) {
        throw new IllegalArgumentException(
            prefix + "jvm-options: each option must start with '-', was '" + option + "'");
      }
      OWNED_OPTIONS.forEach((setting, owned) -> {
        if (owned.stream().anyMatch(option::startsWith)) {
          throw new IllegalArgumentException(
              prefix + "jvm-options: '" + option + "' is set by " + prefix + setting + " instead");
        }
      });
    }
    return List.copyOf(options);
  }

  private EmbeddedSearchStore(int httpPort, Settings properties, List<String> command, Path logFile, Clock clock,
      ScheduledExecutorService scheduler) {
    this.httpPort = httpPort;
    this.properties = properties;
    this.command = List.copyOf(command);
    this.logFile = logFile;
    this.clock = clock;
    this.ownsScheduler = scheduler == null;
    this.scheduler = scheduler != null ? scheduler : Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "search-store-supervisor");
      thread.setDaemon(true);
      return thread;
    });
    this.backoff = new RestartBackoff(properties.restart());
    this.process = startProcess();
    this.ready = readiness(process);
  }

  /** Starts the child and waits until the store is green, or fails with the child's last output. */
  public static EmbeddedSearchStore start(Path directory, Settings properties) {
    EmbeddedSearchStore store = launch(directory, properties);
    store.awaitReady();
    return store;
  }

  /**
   * Starts the child without waiting: its URL is known at once (the port is chosen here), so the node can start the
   * broker while the store boots. Call {@link #awaitReady()} before relying on it.
   */
  public static EmbeddedSearchStore launch(Path directory, Settings properties) {
    return launch(directory, properties, Clock.systemUTC(), null);
  }

  /**
   * As {@link #launch(Path, Settings)}, with the clock the supervisor reads and the scheduler it runs restarts on
   * (null: a daemon thread of its own, shut down on close).
   */
  public static EmbeddedSearchStore launch(
      Path directory, Settings properties, Clock clock, ScheduledExecutorService scheduler) {
    String classpath = properties.classpath();
    if (classpath == null || classpath.isBlank()) {
      throw new IllegalStateException(
          properties.engine().classpathProperty + " is not set: the embedded " + properties.engine().displayName
              + " needs the jars its module builds into target/ (start the node with ./start-node, or set an external "
              + "flowpipe.store.url)");
    }
    String javaHome = properties.javaHome() == null || properties.javaHome().isBlank()
        ? System.getProperty("java.home")
        : properties.javaHome();
    int httpPort = properties.httpPort() == 0 ? freePort() : properties.httpPort();
    int transportPort = properties.transportPort() == 0 ? freePort() : properties.transportPort();
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the embedded store's directory " + directory, e);
    }
    long heapMb = properties.heapMegabytes();
    List<String> command = new ArrayList<>();
    if (properties.niceness() > 0) {
      // nice execs the JVM: same process id, same pipes, every thread started at this niceness
      command.addAll(List.of(niceCommand(properties.niceness()), "-n", String.valueOf(properties.niceness())));
    }
    command.addAll(List.of(
        Path.of(javaHome, "bin", "java").toString(),
        "-Xms" + heapMb + "m",
        "-Xmx" + heapMb + "m"));
    if (!properties.choosesCollector()) {
      command.add("-XX:+UseG1GC");
    }
    command.addAll(properties.jvmOptions());
    command.addAll(List.of(
        "-Djava.awt.headless=true",
        "-Dfile.encoding=UTF-8",
        "--enable-native-access=ALL-UNNAMED",
        "-cp", classpath,
        properties.engine().mainClass,
        "--base-path", directory.toAbsolutePath().toString(),
        "--http-port", String.valueOf(httpPort),
        "--transport-port", String.valueOf(transportPort),
        "--cluster-name", "flowpipe"));
    if (properties.engine() == Engine.OPENSEARCH) {
      // the Elasticsearch child (for tests only) keeps its watermarks off
      properties.watermarks().storeSettings().forEach((key, value) -> {
        command.add("--setting");
        command.add(key + "=" + value);
      });
    }
    Path logFile = directory.resolve(properties.engine().name().toLowerCase() + ".log");
    LOG.info("starting embedded " + properties.engine() + " on 127.0.0.1:{} (data {}, log {}, disk watermarks {})",
        httpPort, directory, logFile, properties.watermarks());
    return new EmbeddedSearchStore(httpPort, properties, command, logFile, clock, scheduler);
  }

  private Process startProcess() {
    try {
      return new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot start the embedded " + properties.engine().displayName + " with " + command.getFirst(), e);
    }
  }

  /** Pumps the child's output into its log; the future completes with its port once it is green. */
  private CompletableFuture<Integer> readiness(Process child) {
    CompletableFuture<Integer> green = new CompletableFuture<>();
    String marker = properties.engine().readyMarker;
    Thread pump = new Thread(() -> pumpOutput(child, logFile, marker, green, lastLines), "search-store-output");
    pump.setDaemon(true);
    pump.start();
    return green;
  }

  /** The {@code nice} program on the PATH, or a failure that names the niceness asked for. */
  static String niceCommand(int niceness) {
    return niceCommand(niceness, System.getenv("PATH"));
  }

  static String niceCommand(int niceness, String path) {
    for (String directory : (path == null ? "" : path).split(java.io.File.pathSeparator)) {
      if (!directory.isBlank() && Files.isExecutable(Path.of(directory, "nice"))) {
        return Path.of(directory, "nice").toString();
      }
    }
    throw new IllegalStateException("niceness " + niceness + " needs the 'nice' program on the PATH, which has none ("
        + path + "); set the niceness to 0 to run the store at the node's own priority");
  }

  /** Waits until the child reports green; on timeout or exit stops it and fails with its last output. */
  public void awaitReady() {
    try {
      ready.get(properties.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
      supervise();
    } catch (TimeoutException e) {
      close();
      throw new IllegalStateException("embedded " + properties.engine().displayName + " was not green within its start timeout ("
          + properties.startTimeout() + "); last output:\n" + String.join("\n", snapshot(lastLines)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
      throw new IllegalStateException("interrupted while waiting for the embedded " + properties.engine().displayName, e);
    } catch (Exception e) {
      close();
      throw new IllegalStateException("embedded " + properties.engine().displayName + " did not start (" + e.getMessage() + "); last output:\n"
          + String.join("\n", snapshot(lastLines)), e);
    }
  }

  /** From the first green on, a child that dies is started again. */
  private synchronized void supervise() {
    if (supervised || closing) {
      return;
    }
    supervised = true;
    state = State.UP;
    backoff.up(clock.instant());
    Process child = process;
    child.onExit().thenRun(() -> exited(child));
  }

  private synchronized void exited(Process child) {
    if (child != process || closing) {
      return;
    }
    Instant now = clock.instant();
    lastExitCode = child.exitValue();
    lastExitAt = now;
    Optional<Duration> wait = backoff.exited(now);
    String exit = "the embedded " + properties.engine().displayName + " (pid " + child.pid() + ") exited with code "
        + lastExitCode;
    if (wait.isEmpty()) {
      giveUp(exit);
      return;
    }
    state = State.RESTARTING;
    nextAttemptAt = now.plus(wait.get());
    reason = exit + "; restart " + backoff.attemptsInARow() + " of " + properties.restart().maxAttempts()
        + " begins in " + wait.get().toMillis() + " ms";
    LOG.warn("{} (its log: {})", reason, logFile);
    pendingRestart = scheduler.schedule(this::restart, wait.get().toNanos(), TimeUnit.NANOSECONDS);
  }

  private void giveUp(String exit) {
    state = State.GAVE_UP;
    nextAttemptAt = null;
    reason = exit + "; " + (properties.restart().maxAttempts() == 0
        ? "restarting is off (restart max-attempts 0)"
        : "gave up after " + backoff.attemptsInARow() + " restarts in a row (restart max-attempts "
            + properties.restart().maxAttempts() + ")");
    LOG.error("{}; the read model is not written until the node is restarted (the store's log: {})", reason, logFile);
  }

  /** Starts the child again on the same command: same data directory, same ports. */
  private synchronized void restart() {
    pendingRestart = null;
    if (closing) {
      return;
    }
    nextAttemptAt = null;
    Process child;
    try {
      child = startProcess();
    } catch (RuntimeException e) {
      // counts as an attempt that died at once
      Optional<Duration> wait = backoff.exited(clock.instant());
      if (wait.isEmpty()) {
        giveUp("the embedded " + properties.engine().displayName + " could not be started again: " + e.getMessage());
      } else {
        nextAttemptAt = clock.instant().plus(wait.get());
        reason = "starting the embedded " + properties.engine().displayName + " again failed: " + e.getMessage();
        pendingRestart = scheduler.schedule(this::restart, wait.get().toNanos(), TimeUnit.NANOSECONDS);
      }
      return;
    }
    process = child;
    LOG.info("embedded {} started again (pid {}, attempt {} of {})", properties.engine().displayName, child.pid(),
        backoff.attemptsInARow(), properties.restart().maxAttempts());
    readiness(child).thenRun(() -> backUp(child));
    child.onExit().thenRun(() -> exited(child));
    // a child that never turns green is stopped, which counts as a failed attempt
    scheduler.schedule(() -> stopIfNotGreen(child), properties.startTimeout().toNanos(), TimeUnit.NANOSECONDS);
  }

  private synchronized void stopIfNotGreen(Process child) {
    if (child == process && child.isAlive() && state != State.UP && !closing) {
      LOG.warn("embedded {} (pid {}) was not green within its start timeout ({}); stopping it. Its last output:\n{}",
          properties.engine().displayName, child.pid(), properties.startTimeout(), String.join("\n", snapshot(lastLines)));
      child.destroyForcibly();
    }
  }

  private synchronized void backUp(Process child) {
    if (child != process || closing) {
      return;
    }
    state = State.UP;
    reason = null;
    backoff.up(clock.instant());
    LOG.info("embedded {} is green again (pid {}) after {} restarts", properties.engine().displayName, child.pid(),
        backoff.restarts());
  }

  /** What the supervisor knows now. */
  public synchronized Status status() {
    return new Status(state, process.pid(), backoff.restarts(), backoff.attemptsInARow(), lastExitCode, lastExitAt,
        nextAttemptAt, reason);
  }

  /** The disk watermarks the child runs with. */
  public DiskWatermarks watermarks() {
    return properties.watermarks();
  }

  private static List<String> snapshot(Deque<String> lines) {
    synchronized (lines) {
      return new ArrayList<>(lines);
    }
  }

  private static void pumpOutput(
      Process process, Path logFile, String marker, CompletableFuture<Integer> ready, Deque<String> last) {
    try (BufferedReader reader =
            new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Writer log = Files.newBufferedWriter(
            logFile, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
      String line;
      while ((line = reader.readLine()) != null) {
        log.write(line);
        log.write('\n');
        log.flush();
        synchronized (last) {
          last.addLast(line);
          if (last.size() > 30) {
            last.removeFirst();
          }
        }
        if (line.startsWith(marker)) {
          ready.complete(Integer.parseInt(line.substring(marker.length()).trim()));
        }
      }
    } catch (IOException | RuntimeException e) {
      ready.completeExceptionally(e);
    }
    ready.completeExceptionally(new IllegalStateException("the process exited with code " + exitCode(process)));
  }

  private static String exitCode(Process process) {
    try {
      return String.valueOf(process.waitFor());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on this machine", e);
    }
  }

  public String url() {
    return "http://127.0.0.1:" + httpPort;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Asks the child to stop (closes its stdin), waits up to the stop timeout, then kills it. */
  @Override
  public void close() {
    Process child;
    synchronized (this) {
      closing = true;
      state = State.STOPPED;
      reason = "closed";
      if (pendingRestart != null) {
        pendingRestart.cancel(false);
      }
      child = process;
    }
    if (ownsScheduler) {
      scheduler.shutdownNow();
    }
    stop(child);
  }

  private void stop(Process process) {
    if (!process.isAlive()) {
      return;
    }
    try {
      OutputStream stdin = process.getOutputStream();
      stdin.close();
    } catch (IOException e) {
      // the pipe is already gone; the child sees end of input either way
    }
    try {
      if (!process.waitFor(properties.stopTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("embedded {} did not stop within {}; killing it", properties.engine().displayName, properties.stopTimeout());
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    LOG.info("embedded {} stopped", properties.engine().displayName);
  }
}
