package dev.flowpipe.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.StockZeebeBroker;
import dev.flowpipe.testsupport.StockZeebeCluster;
import io.camunda.zeebe.client.ZeebeClient;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * camunda-exporter's standalone jar in Camunda's own Zeebe 8.6.0 broker (the camunda-zeebe distribution, unchanged,
 * started with its bin/broker), declared in the broker's YAML as a user would declare it ({@code className},
 * {@code jarPath}, {@code args}), writing to a real OpenSearch: the end-to-end workload through the stock broker's
 * gateway gives the read model our node gives.
 */
@ExtendWith(SharedOpenSearch.class)
class StandaloneExporterInStockBrokerIT {

  private static final Path EXPORTER_JAR = Path.of(System.getProperty("flowpipe.exporter.standalone-jar"));

  @TempDir Path temp;

  @Test
  void theStockBrokerLoadsTheExporterFromItsJarAndTheWorkloadReachesTheReadModel(
      EmbeddedSearchStore openSearch, SearchStore store) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    var exporter =
        new StockZeebeCluster.Exporter("flowpipe", "dev.flowpipe.exporter.ReadModelExporter", EXPORTER_JAR,
            Map.of("url", openSearch.url(), "index-prefix", prefix, "bulk-delay", "50ms", "bulk-size", "500"));

    try (StockZeebeCluster cluster =
        StockZeebeCluster.start(StockZeebeCluster.Settings.of(temp.resolve("broker"), 1, 1, 1, exporter))) {
      StockZeebeBroker broker = cluster.broker(0);
      EndToEndWorkload.Outcome outcome;
      try (ZeebeClient client = broker.client()) {
        outcome = EndToEndWorkload.run(client);
      }
      EndToEndWorkload.assertReadModel(store, prefix, outcome);
      assertThat(broker.log()).doesNotContain("ERROR").doesNotContain("Exception");
      // the exporter's meters go into the registry the broker hands it, so they are on the broker's endpoint
      assertThat(broker.prometheus())
          .contains("flowpipe_exporter_records_total{").contains("flowpipe_exporter_position_durable{");
    }
  }
}
