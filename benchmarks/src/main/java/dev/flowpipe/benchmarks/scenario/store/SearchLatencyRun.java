package dev.flowpipe.benchmarks.scenario.store;

import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.systemtests.EmbeddedStores;
import java.nio.file.Path;

/**
 * The {@code search-latency} scenario: the web app's search latency over many instances in the embedded OpenSearch.
 */
public final class SearchLatencyRun {

  private SearchLatencyRun() {}

  /** The web app's search latency over {@code instances} process instances in the embedded OpenSearch. */
  public static Report searchLatency(Path root, int instances, int runs) throws Exception {
    try (EmbeddedSearchStore node = EmbeddedSearchStore.start(ScratchDirectories.create("bench-search"), EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.url()))) {
      System.out.printf("loading %d instances%n", instances);
      double loadSeconds = SearchLatency.load(store, instances);
      System.out.printf("loaded in %.1f s; measuring %d runs of each query%n", loadSeconds, runs);
      Report report = Report.describing("search latency through the web app's HTTP API (standalone app in this JVM, one client "
          + "thread, sequential requests, answer parsed) over the embedded OpenSearch (1 GB heap) on the same machine");
      report.body().figure("processInstances", instances).section("documents")
          .figure("processInstances", store.count(ReadModelIndex.PROCESS_INSTANCE.indexName("bench")))
          .figure("elementInstances", store.count(ReadModelIndex.FLOW_NODE_INSTANCE.indexName("bench")))
          .figure("variables", store.count(ReadModelIndex.VARIABLE.indexName("bench")))
          .figure("incidents", store.count(ReadModelIndex.INCIDENT.indexName("bench")));
      report.body().figure("loadSeconds", Math.round(loadSeconds * 10) / 10.0)
          .figure("runsPerQuery", runs)
          .merge(SearchLatency.measure(node.url(), instances, runs));
      return report;
    }
  }
}
