package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.ClusterTopology;
import dev.flowpipe.testsupport.DegradedStoreExperiment;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.testsupport.StockZeebeBroker;
import dev.flowpipe.testsupport.StoreProxy;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The flowpipe server as its own process (its runnable jar, {@code java -jar}) beside the shared stock cluster of 3
 * brokers ({@link SharedStockCluster}): operations through its API in the end-to-end workload, with the read model
 * exact and no command refused at a light load while its flow controller is on; then a degraded store behind the
 * exporters, where the controller holds the lag at its target through the brokers' own {@code /actuator/flowControl},
 * puts its limit on a partition's new leader after the old one was killed with SIGKILL, and takes every limit off
 * within 5 s of the store's recovery.
 */
@ExtendWith(SharedStockCluster.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServerBesideTheStockClusterTest {

  /**
   * The controller's target: the age of the oldest record not yet durable in the store. Above the 2 s default: on two
   * cores shared with other builds, three brokers replicating each record three times export a light load 1-1.5 s
   * late at best (measured), and a release needs the lag below half the target.
   */
  private static final Duration TARGET = Duration.ofSeconds(4);
  /** The broker whose gateway the server and the clients use; never the one killed. */
  private static final int GATEWAY_NODE = 0;
  /** Light: no kill, 10 s of the mixed load, a cancellation a second (every other one through the server). */
  private static final CrashSettings LIGHT_LOAD = new CrashSettings(0, SharedStockCluster.PARTITIONS, 20261133,
      Duration.ZERO, Duration.ZERO, Duration.ofSeconds(10), new CrashLoad.Rates(6, 6, 1), List.of());
  private static final String STEADY = "server-steady";
  /** Instances of a start and an end event per second, about 13 records and 3 documents each. */
  private static final int LOAD_PER_SECOND = 12;
  /**
   * Bulk operations per second the degraded store takes: about 60% of what the load needs, well above what the
   * controller's floor lets through (a limit counts records, and the engine's follow-ups pass it: at the floor the
   * writes are still above it).
   */
  private static final double DEGRADED_OPERATIONS_PER_SECOND = 30;

  private StockCluster stock;
  private ServerProcess server;

  @BeforeAll
  void startTheServer(StockCluster stock, EmbeddedSearchStore openSearch) throws Exception {
    this.stock = stock;
    Map<String, Object> settings = ServerProcess.besideTheCluster(stock, openSearch.url(), GATEWAY_NODE);
    settings.put("flowpipe.webapp.operations.enabled", true);
    settings.put("flowpipe.server.gateway.request-timeout", "10s"); // as the load's own clients
    settings.put("flowpipe.server.flow-control.max-export-lag", TARGET.toMillis() + "ms");
    // the warm-up as by default (60 s): the fresh cluster's light load runs within it, the degraded store after it (the
    // degraded test waits for its end)
    // below the default floor of 100 records/s a partition: what the degraded store absorbs here is less
    settings.put("flowpipe.server.flow-control.min-write-rate", 20);
    server = ServerProcess.start(ScratchDirectories.create("server-beside-stock-"), settings);
  }

  @AfterAll
  void stopTheServer() throws Exception {
    if (server != null) {
      server.close();
    }
    if (stock != null) {
      stock.cluster().restartStopped();
      stock.cluster().broker(GATEWAY_NODE).setFlowControl("{\"write\": {\"enabled\": false}}");
    }
  }

  @Test
  @Order(1)
  void aLightMixedLoadWithCancellationsThroughTheServerGivesTheExactReadModelAndNoCommandIsRefused(
      SearchStore store, EmbeddedSearchStore openSearch) throws Exception {
    // given no write limit on any broker, and the server's controller on
    assertNoWriteLimitOnAnyBroker();
    assertThat(server.flowControl().path("settings").path("enabled").asBoolean()).isTrue();

    // when the light mixed load runs, every other cancellation through the server's API
    StockClusterCrash.Report report;
    LagFigures lag;
    try (Timeline timeline = new Timeline(server)) {
      timeline.start();
      report = StockClusterCrash.run(stock, store, openSearch.url(), LIGHT_LOAD, GATEWAY_NODE, System.out::println,
          server.canceller());
      lag = LagFigures.of(timeline.samples("start"), TARGET);
    }

    // then the read model is what the clients and the engine's records say, the server's operations among them
    CrashReport crash = report.crash();
    Map<String, Long> throughServer = commands(crash, server.canceller().kind());
    System.out.printf("server beside the stock cluster, light load: read model %s, checked %.1f s after the load's "
        + "start; refused %s; cancellations through the server %s; the server's view of the lag %s; server's flow "
        + "control %s; load %s%n", crash.passed() ? "exact" : "NOT exact", report.checkedAfterSeconds(),
        report.refusals(), throughServer, lag, server.flowControl(), crash.load());
    assertThat(crash.clientOracle().instances()).as("instances the clients know").isGreaterThan(20);
    assertThat(crash.clientOracle().incidents()).as("incidents raised").isPositive();
    assertThat(throughServer.getOrDefault("CONFIRMED", 0L)).as("cancellations the server confirmed: %s",
        throughServer).isPositive();
    SoftAssertions.assertSoftly(soft -> {
      CrashAssertions.readModelIsExact(soft, crash, SharedStockCluster.PARTITIONS);
      soft.assertThat(report.refusals()).as("commands refused (RESOURCE_EXHAUSTED) at a light load").isEmpty();
    });
    assertNoWriteLimitOnAnyBroker();
  }

  // Not in the suite: about 100 s more on the suite's longest path. It passed twice on a quiet machine once the limit
  // allowed for the brokers' records per unit of it (LimiterGain; docs/measurements/flow-control.md), never before
  // under a load average of 20-50. Run it with -Dflowpipe.server-degraded=true.
  @Test
  @Order(2)
  @EnabledIfSystemProperty(named = "flowpipe.server-degraded", matches = "true")
  void onADegradedStoreTheLimitHoldsTheLagAtTheTargetFollowsAKilledLeaderAndGoesWithinFiveSecondsOfRecovery(
      StoreProxy exportersStore, SearchStore store) throws Exception {
    Timeline timeline = new Timeline(server);
    SoftAssertions soft = new SoftAssertions();
    try (ZeebeClient client = ZeebeClient.newClientBuilder().grpcAddress(stock.cluster().broker(GATEWAY_NODE)
            .gateway()).usePlaintext().useDefaultRetryPolicy(false).defaultRequestTimeout(Duration.ofSeconds(10))
            .build();
        DegradedStoreExperiment load = new DegradedStoreExperiment(client, server.port(), STEADY)) {
      client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess(STEADY).startEvent().endEvent()
          .done(), STEADY + ".bpmn").send().join();
      load.start(LOAD_PER_SECOND);
      timeline.start();
      try {
        // the store degrades after the server's warm-up, within which the controller engages only at twice the target
        // (the light-load test before this one ends within it on a quiet machine: engaged 22.4 s after, not 10.7 s)
        await("the server's warm-up over").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
            .until(() -> !server.flowControl().path("warmingUp").asBoolean(true));
        // when the store the exporters write to takes half of what the load needs
        timeline.phase("degraded");
        exportersStore.throttleBulksTo(DEGRADED_OPERATIONS_PER_SECOND);
        long degradedAt = System.nanoTime();
        // a broker's endpoint not answering one poll in time (a loaded machine) is no answer yet, not a failure
        await("a write limit on the brokers").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
            .ignoreExceptions().until(() -> !brokerWriteLimits().isEmpty());
        double engageSeconds = seconds(degradedAt);

        // then the controller holds the lag at its target through the brokers' endpoints: the mean over 30 s, more
        // than one period of the lag's slow swing with the throttled store's bulks (20-30 s; a 10 s span sampled one
        // phase of it: -28%, +25% and +99% in the runs of 2026-11-27/28)
        timeline.phase("settling");
        Thread.sleep(20_000);
        timeline.phase("settled");
        Thread.sleep(30_000);
        LagFigures lag = LagFigures.of(timeline.samples("settled"), TARGET);
        Map<Integer, Integer> onBrokers = brokerWriteLimits();
        JsonNode report = server.flowControl();
        System.out.printf("engaged %.1f s after the store degraded; settled: %s; brokers' limits %s; server %s%n",
            engageSeconds, lag, onBrokers, report);
        // soft: the failover and the release below are worth seeing whatever the lag did
        soft.assertThat(lag.meanRelativeError()).as("mean lag against the target of %s: %s", TARGET, lag)
            .isLessThanOrEqualTo(0.2);
        assertThat(onBrokers).as("the limit on every partition, as the server put it in force")
            .hasSize(SharedStockCluster.PARTITIONS).containsValue(report.path("clusterWriteLimit").asInt());

        // when the leader of a partition (not the gateway's broker) is killed with SIGKILL while the limit holds
        int partition = stock.cluster().leaders().entrySet().stream().filter(e -> e.getValue() != GATEWAY_NODE)
            .map(Map.Entry::getKey).findFirst().orElseThrow();
        int victim = stock.cluster().leaderOf(partition);
        timeline.phase("failover");
        long killedAt = System.nanoTime();
        stock.cluster().kill(victim);
        StockZeebeBroker asked = stock.cluster().broker(GATEWAY_NODE);
        JsonNode onNewLeader = await("partition " + partition + "'s write limit on its new leader")
            .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
            .until(() -> asked.flowControl().path(String.valueOf(partition)).path("writeRateLimit"),
                write -> write.path("enabled").asBoolean());
        double inForceSeconds = seconds(killedAt);
        int newLeader = ClusterTopology.awaitNewLeader(asked.gateway(), partition, victim, Duration.ofSeconds(10));
        long refusedBefore = load.rejected();
        Thread.sleep(3_000);
        long refusedAfter = load.rejected() - refusedBefore;

        // then the new leader runs with the limit, and refuses what goes beyond it
        System.out.printf("broker %d (leader of partition %d) killed; broker %d leads it; its write limit %s in force"
            + " %.2f s after the kill; %d creations refused in the 3 s after%n", victim, partition, newLeader,
            onNewLeader, inForceSeconds, refusedAfter);
        assertThat(newLeader).isNotEqualTo(victim);
        assertThat(onNewLeader.path("limit").asInt()).as("the limit on the new leader")
            .isGreaterThanOrEqualTo(20);
        assertThat(refusedAfter).as("creations refused beyond the limit after the failover").isPositive();

        // when the killed broker is back (as its orchestrator would start it) and the store recovers
        stock.cluster().restart(victim);
        timeline.phase("recovered");
        exportersStore.throttleBulksTo(0);
        long recoveredAt = System.nanoTime();
        await("no write limit on any broker").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
            .ignoreExceptions().until(() -> brokerWriteLimits().isEmpty() && allBrokersAnswer());
        double releaseSeconds = seconds(recoveredAt);
        System.out.printf("released on every broker %.2f s after the store recovered; server %s%n", releaseSeconds,
            server.flowControl());

        // then every limit is gone within 5 s
        assertThat(releaseSeconds).as("seconds from the store's recovery to no write limit on any broker")
            .isLessThan(5);
      } finally {
        timeline.close();
        exportersStore.throttleBulksTo(0);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "server-flow-control-timeline.csv"), timeline.csv());
      }

      // and nothing the engine accepted is lost
      load.stopLoad();
      String index = ReadModelIndex.PROCESS_INSTANCE.indexName(stock.indexPrefix());
      DegradedStoreExperiment.awaitInReadModel(chunk -> store.getAll(index, chunk), load.acceptedKeys());
      System.out.printf("accepted %d, refused %d, unknown outcome %d, other errors %s%n", load.acceptedKeys().size(),
          load.rejected(), load.unknownOutcome(), load.errorKinds());
    }
    soft.assertAll();
  }

  /** The write limit in force per partition, as each running broker's own endpoint reports it; none: empty. */
  private Map<Integer, Integer> brokerWriteLimits() throws Exception {
    Map<Integer, Integer> limits = new LinkedHashMap<>();
    for (StockZeebeBroker broker : stock.cluster().brokers()) {
      if (!broker.isAlive()) {
        continue;
      }
      broker.flowControl().properties().forEach(partition -> {
        JsonNode write = partition.getValue().path("writeRateLimit");
        if (write.path("enabled").asBoolean()) {
          limits.put(Integer.parseInt(partition.getKey()), write.path("limit").asInt());
        }
      });
    }
    return limits;
  }

  private boolean allBrokersAnswer() throws Exception {
    for (StockZeebeBroker broker : stock.cluster().brokers()) {
      if (broker.flowControl().size() != SharedStockCluster.PARTITIONS) {
        return false;
      }
    }
    return true;
  }

  private void assertNoWriteLimitOnAnyBroker() throws Exception {
    assertThat(brokerWriteLimits()).as("write limits on the brokers").isEmpty();
  }

  private static Map<String, Long> commands(CrashReport crash, String kind) {
    return crash.load().commands().getOrDefault(kind, Map.of());
  }

  private static double seconds(long since) {
    return Math.round((System.nanoTime() - since) / 1e7) / 100.0;
  }

  /** The server's view of each partition every 250 ms, by phase. */
  private static final class Timeline implements AutoCloseable {

    record Sample(double seconds, String phase, int partition, Integer leader, long lagMillis, Integer writeLimit,
        Integer clusterWriteLimit, double writeRate, double exportRate) {}

    private final ServerProcess server;
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
    private volatile String phase = "start";
    private long startNanos;

    Timeline(ServerProcess server) {
      this.server = server;
    }

    void start() {
      startNanos = System.nanoTime();
      sampler.scheduleAtFixedRate(this::sample, 0, 250, TimeUnit.MILLISECONDS);
    }

    void phase(String name) {
      phase = name;
    }

    private void sample() {
      try {
        JsonNode report = server.flowControl();
        double at = (System.nanoTime() - startNanos) / 1e9;
        Integer cluster = report.path("clusterWriteLimit").isInt() ? report.path("clusterWriteLimit").asInt() : null;
        for (JsonNode partition : report.path("partitions")) {
          samples.add(new Sample(at, phase, partition.path("partitionId").asInt(),
              partition.path("leader").isInt() ? partition.path("leader").asInt() : null,
              partition.path("lagMillis").asLong(),
              partition.path("writeLimit").isInt() ? partition.path("writeLimit").asInt() : null, cluster,
              partition.path("writeRate").asDouble(), partition.path("exportRate").asDouble()));
        }
      } catch (Exception e) {
        // a missed sample is a gap in the timeline
      }
    }

    List<Sample> samples(String phase) {
      synchronized (samples) {
        return samples.stream().filter(s -> s.phase().equals(phase)).toList();
      }
    }

    String csv() {
      StringBuilder out = new StringBuilder(
          "seconds,phase,partition,leader,lagMillis,writeLimit,clusterWriteLimit,writeRate,exportRate\n");
      synchronized (samples) {
        samples.forEach(s -> out.append(String.format(Locale.ROOT, "%.2f,%s,%d,%s,%d,%s,%s,%.1f,%.1f%n",
            s.seconds(), s.phase(), s.partition(), s.leader() == null ? "" : s.leader(), s.lagMillis(),
            s.writeLimit() == null ? "" : s.writeLimit(), s.clusterWriteLimit() == null ? "" : s.clusterWriteLimit(),
            s.writeRate(), s.exportRate())));
      }
      return out.toString();
    }

    @Override
    public void close() {
      sampler.shutdownNow();
    }
  }

  /** The lag against the target over samples: the mean's relative error, the largest sample's, per partition. */
  record LagFigures(double meanMillis, double meanRelativeError, long maxMillis, double maxRelativeError,
      Map<Integer, Double> meanMillisByPartition) {

    static LagFigures of(List<Timeline.Sample> samples, Duration target) {
      double targetMillis = target.toMillis();
      double mean = samples.stream().mapToLong(Timeline.Sample::lagMillis).average().orElse(Double.NaN);
      long max = samples.stream().mapToLong(Timeline.Sample::lagMillis).max().orElse(0);
      Map<Integer, Double> byPartition = new java.util.TreeMap<>();
      samples.stream().collect(java.util.stream.Collectors.groupingBy(Timeline.Sample::partition,
              java.util.stream.Collectors.averagingLong(Timeline.Sample::lagMillis)))
          .forEach((partition, value) -> byPartition.put(partition, (double) Math.round(value)));
      return new LagFigures(Math.round(mean), Math.abs(mean - targetMillis) / targetMillis, max,
          Math.abs(max - targetMillis) / targetMillis, byPartition);
    }
  }
}
