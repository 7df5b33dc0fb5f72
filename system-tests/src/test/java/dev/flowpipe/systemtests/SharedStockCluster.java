package dev.flowpipe.systemtests;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.testsupport.ScratchDirectories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;

/**
 * One stock Zeebe cluster (3 brokers, 3 partitions, replication 3) for all test classes of this JVM, started on first
 * use and stopped when the run ends, with our exporter writing to the shared OpenSearch ({@link SharedOpenSearch})
 * under one prefix. Test classes keep apart by their own process ids and keys; each leaves no write limit behind, and
 * a broker a test killed is started again (and the cluster awaited healthy) before the next test gets the cluster.
 */
class SharedStockCluster extends SharedOpenSearch {

  static final int BROKERS = 3;
  static final int PARTITIONS = 3;
  static final int REPLICATION_FACTOR = 3;

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == StockCluster.class || super.supportsParameter(parameter, context);
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    if (parameter.getParameter().getType() != StockCluster.class) {
      return super.resolveParameter(parameter, context);
    }
    String storeUrl = node(context).url();
    StockCluster stock = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent("shared-stock-cluster", key -> Running.start(storeUrl), Running.class).cluster();
    if (stock.cluster().brokers().stream().anyMatch(broker -> !broker.isAlive())) {
      try {
        stock.cluster().restartStopped(); // a broker an earlier test killed
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return stock;
  }

  private record Running(StockCluster cluster) implements ExtensionContext.Store.CloseableResource {

    static Running start(String storeUrl) {
      try {
        Path work = ScratchDirectories.create("stock-cluster-");
        Path exporterJar = Path.of(System.getProperty("flowpipe.exporter.standalone-jar"));
        return new Running(StockCluster.start(work, exporterJar, storeUrl, SharedOpenSearch.uniquePrefix(), BROKERS,
            PARTITIONS, REPLICATION_FACTOR));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      cluster.close();
    }
  }
}
