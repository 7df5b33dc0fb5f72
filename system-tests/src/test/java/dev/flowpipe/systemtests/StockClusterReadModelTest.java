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
 * Our standalone exporter in each broker of a stock Zeebe 8.6 cluster (3 brokers, 3 partitions, replication 3): a
 * light mixed load (deploy, instances, workers, incidents raised and resolved, variables, cancellations) through one
 * broker's gateway gives the read model the node gives, that of one clean pass of our exporter over the engine's own
 * records, and shows what the clients were told; and no command is refused.
 */
@ExtendWith(SharedStockCluster.class)
class StockClusterReadModelTest {

  /** No kill; the load runs 10 s. */
  private static final CrashSettings LIGHT_LOAD = new CrashSettings(0, SharedStockCluster.PARTITIONS, 20261127,
      Duration.ZERO, Duration.ZERO, Duration.ofSeconds(10), new CrashLoad.Rates(6, 6, 0.5), List.of());

  @Test
  void aLightMixedLoadGivesTheReadModelOfOneCleanPassAndWhatTheClientsKnowWithNoCommandRefused(StockCluster stock,
      SearchStore store, EmbeddedSearchStore openSearch) throws Exception {
    // given the shared cluster, the clients on broker 0's gateway; when a light load runs and ends
    StockClusterCrash.Report report =
        StockClusterCrash.run(stock, store, openSearch.url(), LIGHT_LOAD, 0, System.out::println);

    // then the workload was worth checking: all three partitions, incidents and cancellations among it
    CrashReport crash = report.crash();
    System.out.printf("stock cluster, light load: read model %s, checked %.1f s after the load's start; refused %s; "
        + "load %s%n", crash.passed() ? "exact" : "NOT exact", report.checkedAfterSeconds(), report.refusals(),
        crash.load());
    assertThat(crash.recorded()).hasSize(SharedStockCluster.PARTITIONS);
    assertThat(crash.clientOracle().instances()).as("instances the clients know").isGreaterThan(20);
    assertThat(crash.clientOracle().incidents()).as("incidents raised").isPositive();
    assertThat(crash.load().cancellationsConfirmed()).as("cancellations confirmed").isNotZero();
    SoftAssertions.assertSoftly(soft -> {
      CrashAssertions.readModelIsExact(soft, crash, SharedStockCluster.PARTITIONS);
      soft.assertThat(report.refusals()).as("commands refused (RESOURCE_EXHAUSTED) at a light load").isEmpty();
    });
  }
}
