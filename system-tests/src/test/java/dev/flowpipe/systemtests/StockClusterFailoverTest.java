package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.embedded.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.ClusterTopology;
import dev.flowpipe.testsupport.StockZeebeCluster;
import java.time.Duration;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The leader of a partition of the stock cluster killed with SIGKILL under the mixed load: another broker takes the
 * partition over, its copy of our exporter goes on from the last position the cluster kept for it, and once the load
 * has ended the read model is exact (one clean pass over the engine's own records, and what the clients were told).
 * The clients stay on a broker that is not killed; what was in flight on the killed leader is theirs to retry or not
 * (the crash load does not: an unanswered command is an unknown outcome the oracle allows both ways).
 */
@ExtendWith(SharedStockCluster.class)
class StockClusterFailoverTest {

  private static final int PARTITION = 1;
  private static final Duration BEFORE_KILL = Duration.ofSeconds(5);
  private static final Duration AFTER_KILL = Duration.ofSeconds(5);
  private static final Duration EXPORT_RESUMES = Duration.ofSeconds(60);

  @Test
  void aPartitionLeaderKilledUnderLoadFailsOverAndTheReadModelIsExact(StockCluster stock, SearchStore store,
      EmbeddedSearchStore openSearch) throws Exception {
    // given the clients on a broker other than the leader of partition 1
    StockZeebeCluster cluster = stock.cluster();
    int victim = cluster.leaderOf(PARTITION);
    int gatewayNode = (victim + 1) % cluster.settings().brokers();
    StockClusterRun run = new StockClusterRun(stock, store, openSearch.url(), cluster.broker(gatewayNode).gateway(), 1,
        20261128);
    run.begin();
    Thread.sleep(BEFORE_KILL.toMillis());

    // when the leader is killed under load
    long acknowledgedBefore = StockCluster.durablePositions(cluster.broker(victim)).getOrDefault(PARTITION, -1L);
    run.timeline.killed();
    cluster.kill(victim);
    int newLeader = ClusterTopology.awaitNewLeader(cluster.broker(gatewayNode).gateway(), PARTITION, victim,
        Duration.ofSeconds(60));
    double newLeaderAfter = run.timeline.sinceKill();
    double exportingAfter = awaitExporting(stock, newLeader, acknowledgedBefore, run.timeline);
    Thread.sleep(AFTER_KILL.toMillis());
    CrashReport report;
    double checkedAfter;
    double restartedAfter;
    try {
      report = run.finishAndCheck("stock cluster, the leader of partition " + PARTITION + " killed under load");
      checkedAfter = run.timeline.sinceKill();
    } finally {
      // the cluster is shared: the killed broker comes back for the next test class
      cluster.restart(victim);
      restartedAfter = run.timeline.recovered();
    }
    System.out.printf("stock cluster failover: broker %d (leader of partition %d, acknowledged %d) killed; broker %d "
            + "leads after %.1f s; its exporter acknowledged past that after %.1f s; the read model %s, checked %.1f s "
            + "after the kill (%d s more load, the load's end, the check); the killed broker back and the cluster "
            + "healthy %.1f s after the kill; refusals %s; load %s%n", victim, PARTITION, acknowledgedBefore,
        newLeader, newLeaderAfter, exportingAfter, report.passed() ? "exact" : "NOT exact", checkedAfter,
        AFTER_KILL.toSeconds(), restartedAfter, StockClusterRun.refusals(report), report.load());

    // then another broker took over and exported, and the read model is exact
    assertThat(newLeader).isNotEqualTo(victim);
    assertThat(exportingAfter).as("seconds until the new leader's exporter acknowledged past %d", acknowledgedBefore)
        .isPositive();
    assertThat(acknowledgedBefore).as("the killed leader had exported some of the load").isPositive();
    assertThat(report.clientOracle().instances()).as("instances the clients know").isGreaterThan(20);
    SoftAssertions.assertSoftly(soft -> CrashAssertions.readModelIsExact(soft, report, SharedStockCluster.PARTITIONS));
  }

  /** Seconds from the kill until {@code node}'s exporter acknowledged past {@code before} on the partition; -1: never. */
  private static double awaitExporting(StockCluster stock, int node, long before, CrashTimeline timeline)
      throws InterruptedException {
    long deadline = System.nanoTime() + EXPORT_RESUMES.toNanos();
    while (System.nanoTime() < deadline) {
      if (StockCluster.durablePositions(stock.cluster().broker(node)).getOrDefault(PARTITION, -1L) > before) {
        return timeline.sinceKill();
      }
      Thread.sleep(100);
    }
    return -1;
  }
}
