package dev.flowpipe.systemtests;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.ClusterTopology;
import dev.flowpipe.testsupport.NodeCluster;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The crash suite on a cluster: three node processes on loopback (three partitions, replication 3) writing to one
 * OpenSearch of the run's own, the {@link CrashLoad} through one node's gateway, and the leader of a partition (picked
 * by the topology, seeded) killed with SIGKILL under load; the run waits for a new leader and for its exporter to
 * acknowledge past what the killed leader had, restarts the killed node on its data and ports and waits until it has
 * rejoined, and goes on to the next kill. Then the read model is checked as in the crash suite ({@link CrashCheck},
 * the recorded files of all nodes merged), and through each node's web app ({@link WebAppCheck}).
 *
 * <p>The clients use node 0's gateway until a kill takes that node; then they move to the next node, as a client
 * behind a load balancer would. So any node may be killed (a leader can be anywhere), and commands in flight on a
 * killed gateway are what a real client would see: answers lost, outcomes unknown to the oracle.
 */
public final class ClusterCrashSuite {

  static final int NODES = 3;
  private static final Duration ELECTION = Duration.ofSeconds(60);
  private static final Duration EXPORT_RESUMES = Duration.ofSeconds(60);
  private static final Duration REJOIN = Duration.ofSeconds(120);

  private final Path root;
  private final CrashSettings settings;
  private final Consumer<String> progress;
  private final List<ClusterCrashReport.Failover> failovers = new ArrayList<>();
  private int gatewayNode;

  private ClusterCrashSuite(Path root, CrashSettings settings, Consumer<String> progress) {
    this.root = root;
    this.settings = settings;
    this.progress = CrashSuite.timed(progress);
  }

  public static ClusterCrashReport run(Path root, CrashSettings settings, Consumer<String> progress) throws Exception {
    return new ClusterCrashSuite(root, settings, progress).run();
  }

  private ClusterCrashReport run() throws Exception {
    Path work = ScratchDirectories.create("bench-cluster-crash");
    Random kills = new Random(settings.seed());
    ClientOracle oracle = new ClientOracle();
    progress.accept(String.format(Locale.ROOT, "cluster crash suite: seed %d, %d kills, %d nodes, %d partitions, "
        + "replication %d; starting the store", settings.seed(), settings.kills(), NODES, settings.partitions(), NODES));
    try (EmbeddedSearchStore opensearch = EmbeddedSearchStore.start(work.resolve("store"),
            EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(opensearch.url()))) {
      progress.accept("starting " + NODES + " nodes");
      // flow control stays on (its defaults): the load is light, and a refusal is an answer the oracle records
      try (NodeCluster cluster = new NodeCluster(root, work, NODES, NODES, opensearch.url(),
          records -> settings.nodeArgumentsRecordingTo(records, true));
          CrashLoad load = new CrashLoad(cluster.gateway(gatewayNode), store, CrashSuite.NODE_PREFIX,
              settings.rates(), settings.seed(), oracle)) {
        progress.accept("leaders: " + ClusterTopology.awaitLeaders(gateway(cluster), settings.partitions(), ELECTION));
        load.begin();
        CrashTimeline timeline = new CrashTimeline();
        for (int kill = 1; kill <= settings.kills(); kill++) {
          Thread.sleep(settings.uptime(kills).toMillis());
          failovers.add(failover(kill, cluster, load, timeline, kills));
        }
        Thread.sleep(settings.loadAfterLastRestart().toMillis());
        load.finishAndClose(progress);
        CrashCheck.Outcome outcome = CrashCheck.run(store, opensearch.url(), CrashSuite.NODE_PREFIX,
            cluster.recordDirectories(), settings.partitions(), oracle, () -> leadersAcknowledged(cluster), progress);
        WebAppCheck webAppCheck = new WebAppCheck(store, CrashSuite.NODE_PREFIX, oracle);
        List<WebAppCheck.Result> webApps = new ArrayList<>();
        for (int id = 0; id < NODES; id++) {
          progress.accept("node " + id + "'s web app against the store and the client oracle");
          webApps.add(webAppCheck.check(id, cluster.node(id).httpPort()));
        }
        boolean clusterChecks = webApps.stream().allMatch(WebAppCheck.Result::passed)
            && failovers.stream().allMatch(ClusterCrashReport.Failover::exportingResumed);
        CrashReport crash = CrashReport.of("cluster crash suite: a mixed load through one gateway of a 3-node cluster "
            + "(3 partitions, replication 3, one shared store, flow control on), a partition's leader killed with "
            + "SIGKILL under load and restarted on its data until it rejoined, each time; read model against the "
            + "clients' knowledge and one clean pass over every record recorded on any node, and through each node's "
            + "web app", settings, timeline, oracle, load.heldBack(), outcome, clusterChecks);
        return new ClusterCrashReport(crash, "node 0 until a kill takes it, then the next live node (clients "
            + "behind a load balancer): any node can be killed, so every partition can fail over", failovers,
            webApps);
      }
    }
  }

  /** Kills the leader of a seeded partition, waits for a new leader and its exporting, restarts the node, waits. */
  private ClusterCrashReport.Failover failover(int kill, NodeCluster cluster, CrashLoad load, CrashTimeline timeline,
      Random random) throws Exception {
    int partition = 1 + random.nextInt(settings.partitions());
    int victim = ClusterTopology.awaitLeaders(gateway(cluster), settings.partitions(), ELECTION).get(partition);
    long acknowledgedBefore = CrashSuite.durablePositions(cluster.node(victim)).getOrDefault(partition, -1L);
    double at = timeline.killed();
    progress.accept(String.format(Locale.ROOT, "kill %d/%d at %.1f s: node %d, leader of partition %d (acknowledged "
        + "%d)", kill, settings.kills(), at, victim, partition, acknowledgedBefore));
    cluster.kill(victim);
    boolean gatewayKilled = victim == gatewayNode;
    if (gatewayKilled) {
      gatewayNode = (victim + 1) % NODES;
      load.connect(cluster.gateway(gatewayNode));
      progress.accept("  the clients' gateway was on it: they move to node " + gatewayNode);
    }
    int newLeader = ClusterTopology.awaitNewLeader(gateway(cluster), partition, victim, ELECTION);
    double newLeaderAfter = timeline.sinceKill();
    double resumedAfter = awaitExporting(cluster.node(newLeader), partition, acknowledgedBefore, timeline);
    progress.accept(String.format(Locale.ROOT, "  node %d leads partition %d after %.1f s; its exporter %s", newLeader,
        partition, newLeaderAfter, resumedAfter < 0 ? "DID NOT acknowledge past " + acknowledgedBefore + " within "
            + EXPORT_RESUMES : String.format(Locale.ROOT, "acknowledged past it after %.1f s", resumedAfter)));
    cluster.restart(victim);
    progress.accept(String.format(Locale.ROOT, "  node %d restarted, ready %.1f s after the kill", victim,
        timeline.sinceKill()));
    ClusterTopology.awaitRejoined(gateway(cluster), victim, settings.partitions(), REJOIN);
    double rejoinedAfter = timeline.recovered();
    progress.accept(String.format(Locale.ROOT, "  node %d rejoined %.1f s after the kill; leaders %s",
        victim, rejoinedAfter, ClusterTopology.leaders(ClusterTopology.of(gateway(cluster)))));
    return new ClusterCrashReport.Failover(kill, at, partition, victim, gatewayKilled, newLeader, newLeaderAfter,
        resumedAfter, rejoinedAfter);
  }

  /** Seconds from the kill until {@code node}'s exporter acknowledged past {@code before} on the partition; -1: never. */
  private static double awaitExporting(NodeProcess node, int partition, long before, CrashTimeline timeline)
      throws InterruptedException {
    long deadline = System.nanoTime() + EXPORT_RESUMES.toNanos();
    while (System.nanoTime() < deadline) {
      if (CrashSuite.durablePositions(node).getOrDefault(partition, -1L) > before) {
        return timeline.sinceKill();
      }
      Thread.sleep(100);
    }
    return -1;
  }

  private URI gateway(NodeCluster cluster) {
    return cluster.gateway(gatewayNode);
  }

  /** Each partition's leader's acknowledged position (the exporter runs on the leader only). */
  private Map<Integer, Long> leadersAcknowledged(NodeCluster cluster) {
    Map<Integer, Long> acknowledged = new HashMap<>();
    ClusterTopology.leaders(ClusterTopology.of(gateway(cluster))).forEach((partition, node) -> {
      Long position = CrashSuite.durablePositions(cluster.node(node)).get(partition);
      if (position != null) {
        acknowledged.put(partition, position);
      }
    });
    return acknowledged;
  }
}
