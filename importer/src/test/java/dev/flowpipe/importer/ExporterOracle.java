package dev.flowpipe.importer;

import dev.flowpipe.writer.config.WriterSettings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.exporter.ReadModelExporter;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreUnavailableException;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.protocol.record.Record;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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
    args.put(WriterSettings.URL, storeUrl);
    args.put(WriterSettings.INDEX_PREFIX, prefix);
    args.put(WriterSettings.BULK_DELAY, "1h");
    ReadModelExporter exporter = new ReadModelExporter();
    ExporterTestContext context = new ExporterTestContext()
        .setConfiguration(new ExporterTestConfiguration<>("oracle", args, a -> a));
    // as the broker does: each partition's exporter knows its partition (the store keeps each one's log identity)
    int partition = records.isEmpty() ? 1 : records.getFirst().getPartitionId();
    exporter.configure(new PartitionContext(context, partition));
    exporter.open(new ExporterTestController());
    for (Record<?> record : records) {
      offer(exporter, record);
    }
    exporter.close(); // writes what is buffered
  }

  /**
   * Hands the record over as the broker does: an exporter whose buffer is full while the store is behind refuses it
   * (after waiting for its bulks in flight), and the broker offers the same record again. That is the exporter's
   * contract, not a failure; a store that stays behind for a minute is one.
   */
  private static void offer(ReadModelExporter exporter, Record<?> record) {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (true) {
      try {
        exporter.export(record);
        return;
      } catch (StoreUnavailableException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
      }
    }
  }

  /** The test context, as the exporter of {@code partitionId}. */
  private record PartitionContext(ExporterTestContext delegate, int partitionId)
      implements io.camunda.zeebe.exporter.api.context.Context {
    @Override
    public io.micrometer.core.instrument.MeterRegistry getMeterRegistry() {
      return delegate.getMeterRegistry();
    }

    @Override
    public org.slf4j.Logger getLogger() {
      return delegate.getLogger();
    }

    @Override
    public java.time.InstantSource clock() {
      return delegate.clock();
    }

    @Override
    public io.camunda.zeebe.exporter.api.context.Configuration getConfiguration() {
      return delegate.getConfiguration();
    }

    @Override
    public int getPartitionId() {
      return partitionId;
    }

    @Override
    public void setFilter(RecordFilter filter) {
      delegate.setFilter(filter);
    }
  }

  /** Every document of every entity under {@code prefix}, by entity: what two read models are compared on. */
  static Map<ReadModelIndex, List<Map<String, Object>>> readModel(SearchStore store, String prefix) {
    Map<ReadModelIndex, List<Map<String, Object>>> all = new LinkedHashMap<>();
    for (ReadModelIndex entity : ReadModelIndex.fromRecords()) {
      String index = entity.indexName(prefix);
      store.refresh(index);
      all.put(entity, store.all(index, 10_000));
    }
    return all;
  }

  /** The read model under {@code actualPrefix} equals the one under {@code expectedPrefix}, field by field. */
  static void assertSameReadModel(SearchStore store, String expectedPrefix, String actualPrefix) {
    assertSameEntities(store, expectedPrefix, actualPrefix);
    assertThat(deadLetters(store, actualPrefix)).as("dead letters of the import").isZero();
  }

  /** The entities under {@code actualPrefix} equal those under {@code expectedPrefix}, field by field. */
  static void assertSameEntities(SearchStore store, String expectedPrefix, String actualPrefix) {
    var expected = readModel(store, expectedPrefix);
    var actual = readModel(store, actualPrefix);
    expected.forEach((entity, documents) -> {
      assertThat(documents).as("expected %s", entity).isNotEmpty();
      assertThat(actual.get(entity)).as("imported %s", entity).isEqualTo(documents);
    });
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
