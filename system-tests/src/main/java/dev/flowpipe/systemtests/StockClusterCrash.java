package dev.flowpipe.systemtests;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.ClusterTopology;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.testsupport.StockZeebeCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The crash suite on a stock Zeebe cluster ({@link StockCluster}: Camunda's own brokers, our standalone exporter in
 * each): the {@link CrashLoad} through one broker's gateway, and {@code kills} times the leader of a seeded partition
 * killed with SIGKILL under load; the run waits for a new leader and for its exporter to acknowledge past what the
 * killed leader had, and before the next kill restarts the killed broker on its data and waits until the cluster is
 * whole and healthy (the last one is left down: the check needs only a quorum). Then the read model is checked as in the crash suite ({@link CrashCheck}: one clean pass over the engine's own records of
 * every broker, and what the clients were told). With no kill it is the plain end-to-end check.
 *
 * <p>The clients use one broker's gateway until a kill takes it; then they move to the next broker, as a client behind
 * a load balancer would.
 */
public final class StockClusterCrash {

  private static final Duration ELECTION = Duration.ofSeconds(60);
  private static final Duration EXPORT_RESUMES = Duration.ofSeconds(60);

  /**
   * One kill, in seconds from it.
   *
   * @param acknowledgedBefore the killed leader's acknowledged position of the partition just before the kill
   * @param exportingAfterSeconds until the new leader's exporter acknowledged past that (-1: not within 60 s)
   * @param healthyAfterSeconds until the restarted broker was back and every replica healthy (-1: the last kill's
   *     broker is left down; {@link StockZeebeCluster#restartStopped()} brings it back)
   */
  public record Failover(int kill, int partition, int killedNode, long acknowledgedBefore, int newLeader,
      double newLeaderAfterSeconds, double exportingAfterSeconds, double healthyAfterSeconds) {

    public boolean exportingResumed() {
      return exportingAfterSeconds >= 0;
    }
  }

  /**
   * What a run did and found.
   *
   * @param refusals commands refused with RESOURCE_EXHAUSTED, by kind of command
   * @param checkedAfterSeconds from the load's start until the check had compared the read models
   */
  public record Report(CrashReport crash, List<Failover> failovers, Map<String, Long> refusals,
      double checkedAfterSeconds) {

    public boolean passed() {
      return crash.passed() && failovers.stream().allMatch(Failover::exportingResumed);
    }
  }

  private final StockCluster stock;
  private final CrashSettings settings;
  private final Consumer<String> progress;
  private final CrashLoad.Canceller canceller;
  private int gatewayNode;
  /** The broker never killed, or {@link #NONE}. */
  private final int spared;
  private static final int NONE = -1;

  private StockClusterCrash(StockCluster stock, CrashSettings settings, int gatewayNode, Consumer<String> progress,
      CrashLoad.Canceller canceller, int spared) {
    this.stock = stock;
    this.settings = settings;
    this.gatewayNode = gatewayNode;
    this.progress = progress;
    this.canceller = canceller;
    this.spared = spared;
  }

  /**
   * Runs the load with {@code settings.kills()} kills on {@code stock}, whose exporter writes to {@code store} (at
   * {@code storeUrl}), the clients first on broker {@code gatewayNode}; leaves the last kill's broker down.
   */
  public static Report run(StockCluster stock, SearchStore store, String storeUrl, CrashSettings settings,
      int gatewayNode, Consumer<String> progress) throws Exception {
    return run(stock, store, storeUrl, settings, gatewayNode, progress, null);
  }

  /**
   * As {@link #run(StockCluster, SearchStore, String, CrashSettings, int, Consumer)}, every other cancellation sent
   * through {@code canceller} (null: all through the client), e.g. the flowpipe server's API.
   */
  public static Report run(StockCluster stock, SearchStore store, String storeUrl, CrashSettings settings,
      int gatewayNode, Consumer<String> progress, CrashLoad.Canceller canceller) throws Exception {
    return new StockClusterCrash(stock, settings, gatewayNode, CrashSuite.timed(progress), canceller, NONE)
        .run(store, storeUrl);
  }

  /**
   * As {@link #run(StockCluster, SearchStore, String, CrashSettings, int, Consumer)}, never killing the clients'
   * broker {@code gatewayNode}: when the seeded partition's leader is that broker, the next partition led by another is
   * taken (the seeds' other choices stay as they were). For something beside the cluster that has only that gateway,
   * as the flowpipe server has.
   */
  public static Report runSparingTheGateway(StockCluster stock, SearchStore store, String storeUrl,
      CrashSettings settings, int gatewayNode, Consumer<String> progress) throws Exception {
    return new StockClusterCrash(stock, settings, gatewayNode, CrashSuite.timed(progress), null, gatewayNode)
        .run(store, storeUrl);
  }

  private Report run(SearchStore store, String storeUrl) throws Exception {
    StockZeebeCluster cluster = stock.cluster();
    Random kills = new Random(settings.seed());
    ClientOracle oracle = new ClientOracle();
    CrashTimeline timeline = new CrashTimeline();
    List<Failover> failovers = new ArrayList<>();
    long start = System.nanoTime();
    CrashCheck.Outcome outcome;
    long heldBack;
    try (CrashLoad load = new CrashLoad(cluster.broker(gatewayNode).gateway(), store, stock.indexPrefix(),
        settings.rates(), settings.seed(), oracle)) {
      if (canceller != null) {
        load.cancelAlsoThrough(canceller);
      }
      load.begin();
      for (int kill = 1; kill <= settings.kills(); kill++) {
        Thread.sleep(settings.uptime(kills).toMillis());
        failovers.add(failover(kill, load, timeline, kills));
      }
      Thread.sleep(settings.loadAfterLastRestart().toMillis());
      load.finishAndClose(progress);
      heldBack = load.heldBack();
    }
    outcome = CrashCheck.run(store, storeUrl, stock.indexPrefix(), stock.recordDirectories(), stock.partitions(),
        oracle, stock::acknowledged, progress);
    double checkedAfter = CrashTimeline.round1((System.nanoTime() - start) / 1e9);
    CrashReport crash = CrashReport.of("stock cluster: the crash load through one gateway of " + cluster.settings()
        .brokers() + " stock Zeebe 8.6 brokers (" + stock.partitions() + " partitions, replication "
        + cluster.settings().replicationFactor() + ", our standalone exporter in each, one store), " + settings.kills()
        + " partition leaders killed with SIGKILL under load and restarted; read model against the clients' knowledge "
        + "and one clean pass over every record recorded on any broker", settings, timeline, oracle, heldBack,
        outcome, failovers.stream().allMatch(Failover::exportingResumed));
    return new Report(crash, failovers, refusals(crash), checkedAfter);
  }

  /** Kills the leader of a seeded partition, waits for a new leader and its exporting, restarts the broker, waits. */
  private Failover failover(int kill, CrashLoad load, CrashTimeline timeline, Random random) throws Exception {
    StockZeebeCluster cluster = stock.cluster();
    int partition = 1 + random.nextInt(stock.partitions());
    for (int tries = 1; cluster.leaderOf(partition) == spared && tries < stock.partitions(); tries++) {
      partition = 1 + partition % stock.partitions();
    }
    int victim = cluster.leaderOf(partition);
    if (victim == spared) {
      throw new IllegalStateException("broker " + spared + " leads every partition: no leader to kill but it");
    }
    long acknowledgedBefore = StockCluster.durablePositions(cluster.broker(victim)).getOrDefault(partition, -1L);
    double at = timeline.killed();
    progress.accept(String.format(Locale.ROOT, "kill %d/%d at %.1f s: broker %d, leader of partition %d "
        + "(acknowledged %d)", kill, settings.kills(), at, victim, partition, acknowledgedBefore));
    cluster.kill(victim);
    if (victim == gatewayNode) {
      gatewayNode = (victim + 1) % cluster.settings().brokers();
      load.connect(cluster.broker(gatewayNode).gateway());
      progress.accept("  the clients' gateway was on it: they move to broker " + gatewayNode);
    }
    int newLeader = ClusterTopology.awaitNewLeader(cluster.broker(gatewayNode).gateway(), partition, victim,
        ELECTION);
    double newLeaderAfter = timeline.sinceKill();
    double exportingAfter = awaitExporting(newLeader, partition, acknowledgedBefore, timeline);
    progress.accept(String.format(Locale.ROOT, "  broker %d leads partition %d after %.1f s; its exporter %s",
        newLeader, partition, newLeaderAfter, exportingAfter < 0 ? "DID NOT acknowledge past " + acknowledgedBefore
            + " within " + EXPORT_RESUMES : String.format(Locale.ROOT, "acknowledged past it after %.1f s",
            exportingAfter)));
    double healthyAfter = -1;
    if (kill < settings.kills()) { // the next kill needs the whole cluster; after the last one the caller decides
      cluster.restart(victim);
      healthyAfter = timeline.recovered();
      progress.accept(String.format(Locale.ROOT, "  broker %d back, every replica healthy %.1f s after the kill; "
          + "leaders %s", victim, healthyAfter, cluster.leaders()));
    }
    return new Failover(kill, partition, victim, acknowledgedBefore, newLeader, newLeaderAfter, exportingAfter,
        healthyAfter);
  }

  /** Seconds from the kill until {@code node}'s exporter acknowledged past {@code before}; -1: not within 60 s. */
  private double awaitExporting(int node, int partition, long before, CrashTimeline timeline)
      throws InterruptedException {
    long deadline = System.nanoTime() + EXPORT_RESUMES.toNanos();
    while (System.nanoTime() < deadline) {
      if (StockCluster.durablePositions(stock.cluster().broker(node)).getOrDefault(partition, -1L) > before) {
        return timeline.sinceKill();
      }
      Thread.sleep(100);
    }
    return -1;
  }

  /** Commands the cluster refused with RESOURCE_EXHAUSTED, by kind of command (none: an empty map). */
  static Map<String, Long> refusals(CrashReport report) {
    return report.load().errors().entrySet().stream().filter(e -> e.getKey().endsWith(" RESOURCE_EXHAUSTED"))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, Long::sum, LinkedHashMap::new));
  }

  /**
   * The suite on a cluster of 3 stock brokers (3 partitions, replication 3) and an OpenSearch of the run's own, from
   * the project built under {@code root} ({@code benchmarks/run stock-cluster-crash}).
   */
  public static Report runOnAClusterOfItsOwn(Path root, CrashSettings settings, Consumer<String> progress)
      throws Exception {
    Path work = ScratchDirectories.create("bench-stock-cluster-");
    Path home = root.resolve("target/stock-zeebe/camunda-zeebe-" + zeebeVersion(root));
    try (EmbeddedSearchStore opensearch = EmbeddedSearchStore.start(work.resolve("store"),
            EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(opensearch.url()));
        StockCluster stock = StockCluster.start(home, work.resolve("cluster"), standaloneJar(root), opensearch.url(),
            "stock", 3, settings.partitions(), 3)) {
      return run(stock, store, opensearch.url(), settings, 0, progress);
    }
  }

  private static String zeebeVersion(Path root) throws IOException {
    try (Stream<Path> unpacked = Files.list(root.resolve("target/stock-zeebe"))) {
      return unpacked.map(path -> path.getFileName().toString()).filter(name -> name.startsWith("camunda-zeebe-"))
          .map(name -> name.substring("camunda-zeebe-".length())).findFirst()
          .orElseThrow(() -> new IllegalStateException("no unpacked camunda-zeebe under " + root
              + "/target/stock-zeebe: build system-tests' tests once (./mvnw -pl system-tests -am test-compile)"));
    }
  }

  private static Path standaloneJar(Path root) throws IOException {
    try (Stream<Path> jars = Files.list(root.resolve("camunda-exporter/target"))) {
      return jars.filter(jar -> jar.getFileName().toString().endsWith("-standalone.jar")).findFirst()
          .orElseThrow(() -> new IllegalStateException("no standalone exporter jar in " + root
              + "/camunda-exporter/target: package camunda-exporter first"));
    }
  }
}
