package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.embedded.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import java.time.Duration;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Our standalone exporter in each broker of a stock Zeebe 8.6 cluster (3 brokers, 3 partitions, replication 3): a
 * light mixed load through one broker's gateway gives the read model the node gives, that of one clean pass of our
 * exporter over the engine's own records, and shows what the clients were told; no command is refused.
 */
@ExtendWith(SharedStockCluster.class)
class StockClusterReadModelTest {

  private static final Duration LOAD = Duration.ofSeconds(10);

  @Test
  void aLightMixedLoadGivesTheReadModelOfOneCleanPassAndWhatTheClientsKnowWithNoCommandRefused(StockCluster stock,
      SearchStore store, EmbeddedSearchStore openSearch) throws Exception {
    // given the shared cluster, the clients on broker 0's gateway
    StockClusterRun run = new StockClusterRun(stock, store, openSearch.url(), stock.cluster().broker(0).gateway(), 0,
        20261127);

    // when a light load runs, then ends
    long started = System.nanoTime();
    run.begin();
    Thread.sleep(LOAD.toMillis());
    CrashReport report = run.finishAndCheck("stock cluster, light load, no kill");
    System.out.printf("stock cluster read model: %s; refusals %s; load %s; %.1f s from the load's start to the check%n",
        report.passed() ? "exact" : "NOT exact", StockClusterRun.refusals(report), report.load(),
        (System.nanoTime() - started) / 1e9);

    // then the workload was worth checking: all three partitions, incidents and cancellations among it
    assertThat(report.recorded()).hasSize(SharedStockCluster.PARTITIONS);
    assertThat(report.clientOracle().instances()).as("instances the clients know").isGreaterThan(20);
    assertThat(report.clientOracle().incidents()).as("incidents raised").isPositive();
    assertThat(report.load().get("cancellationsConfirmed")).as("cancellations confirmed").isNotEqualTo(0L);
    SoftAssertions.assertSoftly(soft -> {
      CrashAssertions.readModelIsExact(soft, report, SharedStockCluster.PARTITIONS);
      soft.assertThat(StockClusterRun.refusals(report)).as("commands refused (RESOURCE_EXHAUSTED) at a light load")
          .isEmpty();
    });
  }
}
