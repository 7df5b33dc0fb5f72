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
 * under one prefix. Test classes keep apart by their own process ids and keys; each leaves the cluster as it found
 * it (every broker running, no write limit).
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
    return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent("shared-stock-cluster", key -> Running.start(storeUrl), Running.class).cluster();
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
