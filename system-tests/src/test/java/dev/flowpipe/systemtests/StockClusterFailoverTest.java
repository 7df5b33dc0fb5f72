package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The leader of a partition of the stock cluster killed with SIGKILL under the mixed load: another broker takes the
 * partition over, its copy of our exporter goes on from the last position the cluster kept for it, and once the load
 * has ended the read model is exact (one clean pass over the engine's own records, and what the clients were told).
 * The crash load sends nothing twice: a command whose answer the kill lost is an unknown outcome the oracle allows
 * both ways. The killed broker stays down until the next test class takes the shared cluster ({@link
 * SharedStockCluster} starts it again): the check needs only a quorum.
 */
@ExtendWith(SharedStockCluster.class)
class StockClusterFailoverTest {

  /** One kill after 5 s of load; 3 s more load after the restart. */
  private static final CrashSettings ONE_KILL = new CrashSettings(1, SharedStockCluster.PARTITIONS, 20261128,
      Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(3), new CrashLoad.Rates(6, 6, 0.5), List.of());

  @Test
  void aPartitionLeaderKilledUnderLoadFailsOverAndTheReadModelIsExact(StockCluster stock, SearchStore store,
      EmbeddedSearchStore openSearch) throws Exception {
    // when the leader of a partition is killed under load (the clients on broker 0, moving on if it is the one)
    StockClusterCrash.Report report =
        StockClusterCrash.run(stock, store, openSearch.url(), ONE_KILL, 0, System.out::println);

    // then another broker took over and exported, and the read model is exact
    CrashReport crash = report.crash();
    System.out.printf("stock cluster failover: %s; read model %s, checked %.1f s after the load's start; refused %s;"
        + " load %s%n", report.failovers(), crash.passed() ? "exact" : "NOT exact", report.checkedAfterSeconds(),
        report.refusals(), crash.load());
    assertThat(report.failovers()).singleElement().satisfies(failover -> {
      assertThat(failover.newLeader()).isNotEqualTo(failover.killedNode());
      assertThat(failover.acknowledgedBefore()).as("the killed leader had exported some of the load").isPositive();
      assertThat(failover.exportingResumed()).as("the new leader exports: %s", failover).isTrue();
    });
    assertThat(crash.clientOracle().instances()).as("instances the clients know").isGreaterThan(20);
    SoftAssertions.assertSoftly(soft -> CrashAssertions.readModelIsExact(soft, crash, SharedStockCluster.PARTITIONS));
  }
}
