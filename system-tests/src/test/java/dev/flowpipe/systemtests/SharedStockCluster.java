package dev.flowpipe.systemtests;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.testsupport.StoreProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;

/**
 * One stock Zeebe cluster (3 brokers, 3 partitions, replication 3) for all test classes of this JVM, started on first
 * use and stopped when the run ends, with our exporter writing to the shared OpenSearch ({@link SharedOpenSearch})
 * under one prefix, through a {@link StoreProxy} a test may take as a parameter to degrade the store the exporters
 * write to (everything else reaches the store directly). Test classes keep apart by their own process ids and keys;
 * each leaves no write limit behind, and a broker a test killed is started again (and the cluster awaited healthy)
 * and the proxy's throttle lifted before the next test gets the cluster.
 */
class SharedStockCluster extends SharedOpenSearch {

  static final int BROKERS = 3;
  static final int PARTITIONS = 3;
  static final int REPLICATION_FACTOR = 3;

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == StockCluster.class || type == StoreProxy.class || super.supportsParameter(parameter, context);
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    if (type != StockCluster.class && type != StoreProxy.class) {
      return super.resolveParameter(parameter, context);
    }
    String storeUrl = node(context).url();
    Running running = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent("shared-stock-cluster", key -> Running.start(storeUrl), Running.class);
    if (type == StoreProxy.class) {
      return running.exportersStore();
    }
    running.exportersStore().throttleBulksTo(0); // an earlier test's degraded store
    StockCluster stock = running.cluster();
    if (stock.cluster().brokers().stream().anyMatch(broker -> !broker.isAlive())) {
      try {
        stock.cluster().restartStopped(); // a broker an earlier test killed
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return stock;
  }

  private record Running(StockCluster cluster, StoreProxy exportersStore)
      implements ExtensionContext.Store.CloseableResource {

    static Running start(String storeUrl) {
      StoreProxy proxy = null;
      try {
        Path work = ScratchDirectories.create("stock-cluster-");
        Path exporterJar = Path.of(System.getProperty("flowpipe.exporter.standalone-jar"));
        proxy = new StoreProxy(storeUrl, null, null);
        return new Running(StockCluster.start(work, exporterJar, proxy.url(), SharedOpenSearch.uniquePrefix(),
            BROKERS, PARTITIONS, REPLICATION_FACTOR), proxy);
      } catch (IOException | RuntimeException e) {
        if (proxy != null) {
          proxy.close();
        }
        if (e instanceof IOException io) {
          throw new UncheckedIOException(io);
        }
        throw (RuntimeException) e;
      }
    }

    @Override
    public void close() {
      cluster.close();
      exportersStore.close();
    }
  }
}
