package dev.flowpipe.systemtests;

import dev.flowpipe.exporter.ReadModelExporter;
import dev.flowpipe.schema.store.StoreUnavailableException;
import dev.flowpipe.writer.config.WriterSettings;
import io.camunda.zeebe.exporter.api.context.Configuration;
import io.camunda.zeebe.exporter.api.context.Context;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.protocol.record.Record;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;

/**
 * Our exporter outside the broker, fed one partition's records once, in log order, with no crash: the read model of
 * one clean pass, for the crash suite to compare the node's with. It sees the records the broker would hand it (its
 * own record filter applies), each a separate object, so nothing it keeps can change under it.
 */
public final class CleanPass implements AutoCloseable {

  private static final Context.RecordFilter OUR_FILTER = ourFilter();

  private final ExporterTestController controller = new ExporterTestController();
  private final ReadModelExporter exporter = new ReadModelExporter();
  private final Context.RecordFilter filter;
  private final int partition;
  private long lastPosition = -1;

  /**
   * @param variableValueLimit as the node's exporter has it, so that both truncate the same values
   */
  public CleanPass(String storeUrl, String indexPrefix, int partition, int variableValueLimit) {
    this.partition = partition;
    Map<String, Object> args = new HashMap<>();
    args.put(WriterSettings.URL, storeUrl);
    args.put(WriterSettings.INDEX_PREFIX, indexPrefix);
    args.put(WriterSettings.VARIABLE_VALUE_LIMIT, variableValueLimit);
    // flushes by size only (the test controller runs no timers); close() writes the rest
    args.put(WriterSettings.BULK_DELAY, "1h");
    PartitionContext context = new PartitionContext(partition, new ExporterTestConfiguration<>("clean-pass", args,
        a -> a));
    exporter.configure(context);
    filter = context.filter;
    exporter.open(controller);
  }

  /** Whether our exporter takes this record at all (its own filter, as the broker applies it). */
  public static boolean exported(Record<?> record) {
    return accepts(OUR_FILTER, record);
  }

  private static boolean accepts(Context.RecordFilter filter, Record<?> record) {
    return filter.acceptType(record.getRecordType()) && filter.acceptValue(record.getValueType());
  }

  private static Context.RecordFilter ourFilter() {
    PartitionContext context = new PartitionContext(1, new ExporterTestConfiguration<>("filter",
        Map.<String, Object>of(WriterSettings.URL, "http://127.0.0.1:9"), a -> a));
    new ReadModelExporter().configure(context);
    return context.filter;
  }

  /** Hands the record to the exporter as the broker does: again while the exporter refuses it. */
  public void export(Record<?> record) {
    if (record.getPartitionId() != partition) {
      throw new IllegalArgumentException("record of partition " + record.getPartitionId() + " fed to the clean pass "
          + "of partition " + partition);
    }
    if (!accepts(filter, record)) {
      return;
    }
    offerUntilTaken(exporter, record);
    lastPosition = record.getPosition();
  }

  /** Writes what is buffered; fails unless every record fed is durable (acknowledged). */
  @Override
  public void close() {
    exporter.close();
    if (controller.getPosition() < lastPosition) {
      throw new IllegalStateException("the clean pass of partition " + partition + " acknowledged "
          + controller.getPosition() + ", not the last record fed (" + lastPosition + "); its store writes failed");
    }
  }

  /** The exporter test kit's context, on a given partition (its own always says 0), keeping the filter it is given. */
  private static final class PartitionContext implements Context {
    private final ExporterTestContext delegate = new ExporterTestContext();
    private final int partition;
    private RecordFilter filter;

    PartitionContext(int partition, Configuration configuration) {
      this.partition = partition;
      delegate.setConfiguration(configuration);
    }

    @Override
    public MeterRegistry getMeterRegistry() {
      return delegate.getMeterRegistry();
    }

    @Override
    public Logger getLogger() {
      return delegate.getLogger();
    }

    @Override
    public InstantSource clock() {
      return delegate.clock();
    }

    @Override
    public Configuration getConfiguration() {
      return delegate.getConfiguration();
    }

    @Override
    public int getPartitionId() {
      return partition;
    }

    @Override
    public void setFilter(RecordFilter filter) {
      this.filter = filter;
    }
  }

  /**
   * Hands the record to the exporter as the broker does: a record refused because the exporter's buffer is full
   * (it waits a bounded time for the store, then refuses) is offered again until it is taken.
   */
  public static void offerUntilTaken(ReadModelExporter exporter, Record<?> record) {
    while (true) {
      try {
        exporter.export(record);
        return;
      } catch (StoreUnavailableException refused) {
        // the broker retries the same record; the exporter's own wait paces this loop
      }
    }
  }
}
