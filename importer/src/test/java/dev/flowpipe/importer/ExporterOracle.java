package dev.flowpipe.importer;

import dev.flowpipe.exporter.ReadModelExporter;
import dev.flowpipe.exporter.config.ExporterConfiguration;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.protocol.record.Record;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The expected read model of a test: the records handed to our in-broker exporter, one partition at a time in log
 * order, as the broker would. Independent of everything the importer adds (reading raw records, merging value types,
 * cursors); what they share is the transformation itself, which is the point.
 */
final class ExporterOracle {

  private ExporterOracle() {}

  /** Exports {@code records} (one partition's, in log order) into the read model under {@code prefix}. */
  static void export(String storeUrl, String prefix, List<Record<?>> records) {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put(ExporterConfiguration.URL, storeUrl);
    args.put(ExporterConfiguration.INDEX_PREFIX, prefix);
    args.put(ExporterConfiguration.BULK_DELAY, "1h");
    ReadModelExporter exporter = new ReadModelExporter();
    exporter.configure(new ExporterTestContext()
        .setConfiguration(new ExporterTestConfiguration<>("oracle", args, a -> a)));
    exporter.open(new ExporterTestController());
    records.forEach(exporter::export);
    exporter.close(); // writes what is buffered
  }

  /** Every document of every entity under {@code prefix}, by entity: what two read models are compared on. */
  static Map<ReadModelIndex, List<Map<String, Object>>> readModel(SearchStore store, String prefix) {
    Map<ReadModelIndex, List<Map<String, Object>>> all = new LinkedHashMap<>();
    for (ReadModelIndex entity : ReadModelIndex.entities()) {
      String index = entity.indexName(prefix);
      store.refresh(index);
      all.put(entity, store.all(index, 10_000));
    }
    return all;
  }

  static long deadLetters(SearchStore store, String prefix) {
    String index = ReadModelIndex.DEAD_LETTER.indexName(prefix);
    if (!store.indexExists(index)) {
      return 0;
    }
    store.refresh(index);
    return store.count(index);
  }
}
