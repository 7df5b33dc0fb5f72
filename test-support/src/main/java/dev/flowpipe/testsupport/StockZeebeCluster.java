package dev.flowpipe.testsupport;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.BrokerInfo;
import io.camunda.zeebe.client.api.response.PartitionBrokerHealth;
import io.camunda.zeebe.client.api.response.PartitionInfo;
import io.camunda.zeebe.client.api.response.Topology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A cluster of stock Zeebe 8.6 brokers from Camunda's distribution ({@code camunda-zeebe}, unpacked by the build; its
 * home in the system property {@value #HOME_PROPERTY}), each its own process on loopback with its gateway enabled,
 * the exporters given in {@link Settings} declared in every broker's YAML ({@code zeebe.broker.exporters.<id>}) as a
 * user declares them. Brokers are numbered by node id from 0; any one's gateway serves the whole cluster.
 *
 * <pre>{@code
 * try (var cluster = StockZeebeCluster.start(StockZeebeCluster.Settings.of(work, 3, 3, 3, exporter));
 *     var client = cluster.client()) {
 *   int leader = cluster.leaderOf(1);
 *   cluster.broker(leader).setFlowControl("{\"write\": {\"enabled\": true, \"limit\": 50}}");
 *   cluster.kill(leader);
 *   cluster.restart(leader);
 * }
 * }</pre>
 */
public final class StockZeebeCluster implements AutoCloseable {

  /** The system property naming the unpacked distribution's home (the directory holding {@code bin/broker}). */
  public static final String HOME_PROPERTY = "zeebe.distribution.home";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration READY_WITHIN = Duration.ofMinutes(5);

  /**
   * The brokers' JVM options by default: light on CPU for a shared test machine, where several brokers start at once
   * (the client compiler only, a serial collector); a test measuring throughput gives its own.
   */
  public static final String TEST_JAVA_OPTIONS = "-Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

  /** In an exporter's argument, stands for the node id of the broker whose YAML it is written to. */
  public static final String NODE_ID = "{nodeId}";

  /**
   * An exporter as the broker's YAML declares it under {@code zeebe.broker.exporters.<id>}; {@link #NODE_ID} in an
   * argument's value becomes each broker's node id (e.g. a directory of each broker's own).
   */
  public record Exporter(String id, String className, Path jarPath, Map<String, String> args) {
    public Exporter {
      Objects.requireNonNull(id, "exporter id");
      Objects.requireNonNull(className, "exporter className");
      args = Map.copyOf(args);
    }
  }

  /**
   * What to start: the distribution at {@code home}, {@code brokers} brokers holding {@code partitions} partitions
   * with {@code replicationFactor} replicas each, every broker with {@code exporters}, their data and logs under
   * {@code workDirectory}; {@code brokerSettings} are further broker settings by Spring property name (e.g.
   * {@code zeebe.broker.flowControl.write.enabled}), the same in every broker but for {@link #NODE_ID};
   * {@code javaOptions} the brokers' {@code JAVA_OPTS} ({@link #TEST_JAVA_OPTIONS} unless given).
   */
  public record Settings(Path home, Path workDirectory, int brokers, int partitions, int replicationFactor,
      List<Exporter> exporters, Map<String, String> brokerSettings, String javaOptions) {
    public Settings {
      Objects.requireNonNull(home, "home");
      Objects.requireNonNull(workDirectory, "workDirectory");
      if (brokers < 1 || partitions < 1 || replicationFactor < 1 || replicationFactor > brokers) {
        throw new IllegalArgumentException("a cluster needs brokers >= 1, partitions >= 1 and 1 <= replicationFactor"
            + " <= brokers, was brokers=" + brokers + " partitions=" + partitions + " replicationFactor="
            + replicationFactor);
      }
      exporters = List.copyOf(exporters);
      brokerSettings = Map.copyOf(brokerSettings);
      Objects.requireNonNull(javaOptions, "javaOptions");
    }

    /** The distribution named by {@value #HOME_PROPERTY}, and no further broker settings. */
    public static Settings of(Path workDirectory, int brokers, int partitions, int replicationFactor,
        Exporter... exporters) {
      return new Settings(distributionHome(), workDirectory, brokers, partitions, replicationFactor,
          List.of(exporters), Map.of(), TEST_JAVA_OPTIONS);
    }

    /** These settings and one broker setting more (a Spring property name and its value). */
    public Settings with(String property, String value) {
      Map<String, String> more = new LinkedHashMap<>(brokerSettings);
      more.put(property, value);
      return new Settings(home, workDirectory, brokers, partitions, replicationFactor, exporters, more, javaOptions);
    }

    /** These settings with the brokers' {@code JAVA_OPTS} replaced (e.g. a larger heap and the full JIT for a
     * measurement). */
    public Settings withJavaOptions(String options) {
      return new Settings(home, workDirectory, brokers, partitions, replicationFactor, exporters, brokerSettings,
          options);
    }
  }

  private final Settings settings;
  private final List<StockZeebeBroker> brokers;

  private StockZeebeCluster(Settings settings, List<StockZeebeBroker> brokers) {
    this.settings = settings;
    this.brokers = brokers;
  }

  /** The unpacked distribution named by the system property {@value #HOME_PROPERTY}; fails if it is not there. */
  public static Path distributionHome() {
    String home = System.getProperty(HOME_PROPERTY);
    if (home == null || !Files.isExecutable(Path.of(home, "bin", "broker"))) {
      throw new IllegalStateException("the system property " + HOME_PROPERTY + " must name an unpacked camunda-zeebe "
          + "distribution (with bin/broker), was " + home);
    }
    return Path.of(home);
  }

  /**
   * Writes each broker's YAML, starts every broker, and waits (up to 5 min) until each partition has a leader and every
   * replica is healthy; stops what it started if that fails.
   */
  public static StockZeebeCluster start(Settings settings) throws IOException {
    List<StockZeebeBroker.Ports> ports = new ArrayList<>();
    for (int id = 0; id < settings.brokers(); id++) {
      ports.add(StockZeebeBroker.Ports.free());
    }
    String clusterName = "stock-" + UUID.randomUUID(); // another run's brokers on loopback never join this one
    List<StockZeebeBroker> brokers = new ArrayList<>();
    for (int id = 0; id < settings.brokers(); id++) {
      Path directory = Files.createDirectories(settings.workDirectory().resolve("broker-" + id));
      Path config = directory.resolve("broker.yaml");
      Files.writeString(config, yaml(settings, clusterName, id, ports, directory.resolve("data")));
      // the log beside, not inside, the broker's directory: a scratch directory's cleanup keeps top-level logs
      brokers.add(new StockZeebeBroker(id, settings.home(), config, settings.javaOptions(), ports.get(id),
          settings.workDirectory().resolve("broker-" + id + ".log")));
    }
    StockZeebeCluster cluster = new StockZeebeCluster(settings, brokers);
    try {
      for (StockZeebeBroker broker : brokers) {
        broker.launch();
      }
      cluster.awaitHealthy();
    } catch (IOException | RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  static String yaml(Settings settings, String clusterName, int nodeId, List<StockZeebeBroker.Ports> all,
      Path data) {
    StockZeebeBroker.Ports ports = all.get(nodeId);
    String contactPoints = all.stream().map(p -> quoted("127.0.0.1:" + p.internal()))
        .collect(Collectors.joining(", ", "[", "]"));
    StringBuilder exporters = new StringBuilder(settings.exporters().isEmpty() ? "    exporters: {}\n"
        : "    exporters:\n");
    for (Exporter exporter : settings.exporters()) {
      exporters.append("      ").append(exporter.id()).append(":\n")
          .append("        className: ").append(quoted(exporter.className())).append('\n');
      if (exporter.jarPath() != null) {
        exporters.append("        jarPath: ").append(quoted(exporter.jarPath().toString())).append('\n');
      }
      if (!exporter.args().isEmpty()) {
        exporters.append("        args:\n");
        exporter.args().forEach((key, value) -> exporters.append("          ").append(key).append(": ")
            .append(quoted(value.replace(NODE_ID, String.valueOf(nodeId)))).append('\n'));
      }
    }
    StringBuilder extra = new StringBuilder();
    // flat keys beside the nested ones: Spring binds "a.b.c: v" as it binds a: b: c: v
    settings.brokerSettings().forEach((key, value) -> extra.append(quoted(key)).append(": ")
        .append(quoted(value.replace(NODE_ID, String.valueOf(nodeId)))).append('\n'));
    return """
        zeebe:
          broker:
            cluster:
              clusterName: %s
              nodeId: %d
              clusterSize: %d
              partitionsCount: %d
              replicationFactor: %d
              initialContactPoints: %s
            data:
              directory: %s
            network:
              host: 127.0.0.1
              commandApi:
                port: %d
              internalApi:
                port: %d
            gateway:
              enable: true
              network:
                host: 127.0.0.1
                port: %d
        %s
        server:
          port: %d
        management:
          server:
            port: %d
        %s""".formatted(clusterName, nodeId, settings.brokers(), settings.partitions(), settings.replicationFactor(),
        contactPoints, quoted(data.toString()), ports.command(), ports.internal(), ports.gateway(),
        exporters.toString().stripTrailing(), ports.server(), ports.monitoring(), extra);
  }

  private static String quoted(String value) {
    try {
      return JSON.writeValueAsString(value); // a JSON string is a YAML double-quoted scalar
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Settings settings() {
    return settings;
  }

  /** Broker {@code nodeId} (0 to brokers - 1), running or killed. */
  public StockZeebeBroker broker(int nodeId) {
    return brokers.get(nodeId);
  }

  public List<StockZeebeBroker> brokers() {
    return List.copyOf(brokers);
  }

  /** A client of the gateway of the first running broker; the caller closes it. */
  public ZeebeClient client() {
    return running().client();
  }

  private StockZeebeBroker running() {
    return brokers.stream().filter(StockZeebeBroker::isAlive).findFirst()
        .orElseThrow(() -> new IllegalStateException("no broker of the cluster is running"));
  }

  /** The topology as the first running broker's gateway sees it, or null if it does not answer within 2 s. */
  public Topology topology() {
    return ClusterTopology.of(running().gateway());
  }

  /** The node leading each partition now, by partition id; partitions without a leader are left out. */
  public Map<Integer, Integer> leaders() {
    return ClusterTopology.leaders(topology());
  }

  /** The node that leads {@code partition}, once one does (waits up to 60 s). */
  public int leaderOf(int partition) {
    return await("a leader of partition " + partition).atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100)).dontCatchUncaughtExceptions() // see awaitHealthy
        .until(() -> leaders().get(partition), Objects::nonNull);
  }

  /** SIGKILL to broker {@code nodeId}; returns once it has exited. Its data, ports and YAML stay for a restart. */
  public void kill(int nodeId) throws InterruptedException {
    brokers.get(nodeId).kill();
  }

  /** Starts broker {@code nodeId} again on its data and waits until the cluster is whole and healthy again. */
  public void restart(int nodeId) throws IOException {
    brokers.get(nodeId).launch();
    awaitHealthy();
  }

  /** Starts again every broker that is not running (killed), on its data, and waits until the cluster is healthy. */
  public void restartStopped() throws IOException {
    for (StockZeebeBroker broker : brokers) {
      if (!broker.isAlive()) {
        broker.launch();
      }
    }
    awaitHealthy();
  }

  /**
   * Until every partition has a leader, each of its replicas on every broker is healthy, and every broker's monitoring
   * port answers (the management server starts last, after the partitions).
   */
  public void awaitHealthy() {
    int replicas = settings.partitions() * settings.replicationFactor();
    try {
      await("a healthy stock cluster of " + settings.brokers() + " brokers, " + settings.partitions()
          + " partitions, replication " + settings.replicationFactor()).atMost(READY_WITHIN)
          .pollInterval(Duration.ofMillis(250))
          // a topology request that timed out leaves its closed client's gRPC thread throwing
          // RejectedExecutionException: no news of the cluster (awaitility would fail the start with it)
          .dontCatchUncaughtExceptions()
          .failFast("a broker exited", () -> brokers.stream().anyMatch(b -> !b.isAlive()))
          .until(() -> healthy(topology(), replicas)
              && brokers.stream().allMatch(StockZeebeBroker::monitoringAnswers));
    } catch (ConditionTimeoutException | org.awaitility.core.TerminalFailureException e) {
      throw new AssertionError("the stock cluster did not become healthy (last topology:"
          + ClusterTopology.describe(topology()) + "); the logs end:\n" + logTails(), e);
    }
  }

  private boolean healthy(Topology topology, int replicas) {
    if (topology == null || topology.getBrokers().size() != settings.brokers()
        || leaders().size() != settings.partitions()) {
      return false;
    }
    List<PartitionInfo> held = topology.getBrokers().stream().map(BrokerInfo::getPartitions)
        .flatMap(List::stream).toList();
    return held.size() == replicas && held.stream().allMatch(p -> p.getHealth() == PartitionBrokerHealth.HEALTHY);
  }

  /** The last lines of each broker's log, for a failure message. */
  public String logTails() {
    return brokers.stream().map(b -> "--- broker " + b.nodeId() + " (" + b.logFile() + ")\n" + b.logTail())
        .collect(Collectors.joining("\n"));
  }

  /**
   * Stops every broker (SIGTERM, in parallel; SIGKILL after 30 s). The work directory stays, with the logs
   * ({@code broker-<id>.log}).
   */
  @Override
  public void close() {
    List<Thread> stopping = brokers.stream()
        .map(broker -> Thread.ofPlatform().start(() -> broker.stop(Duration.ofSeconds(30)))).toList();
    for (Thread thread : stopping) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
