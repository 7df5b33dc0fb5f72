package dev.flowpipe.writer;

import dev.flowpipe.schema.deletion.DeletedInstances;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.writer.batch.BulkPipeline;
import dev.flowpipe.writer.config.WriterSettings;
import dev.flowpipe.writer.error.DeadLetters;
import dev.flowpipe.writer.handler.ExportHandler;
import dev.flowpipe.writer.store.BulkWriter;
import dev.flowpipe.writer.store.DeletedInstanceFilter;
import dev.flowpipe.writer.store.DerivedFields;
import dev.flowpipe.writer.store.ExportPositionMarker;
import dev.flowpipe.writer.store.RetryPolicy;
import dev.flowpipe.writer.store.StoreSession;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;

/**
 * The one place that builds a partition's writing parts from the writer's settings, for the exporter and the importer
 * alike: the {@link ReadModelWriter} (handlers, document buffer, flush policy), the {@link RetryPolicy}, and how bulks
 * reach the store - a {@link BulkWriter} on the caller's thread (the importer), or a {@link StoreSession} that
 * connects in the background and a {@link BulkPipeline} of bulks in flight (the exporter, which must never keep the
 * broker's actor waiting). An adapter hands in its clock, its log and its meters, and builds none of these itself.
 */
public final class PartitionWriting {

  /**
   * What the parts count into the adapter's meters.
   *
   * @param deadLetter a record whose handler failed, or a document the store refused, went to the dead letters
   * @param retry a failed attempt is to be tried again
   */
  public record Counters(Runnable deadLetter, Runnable retry) {}

  private final WriterSettings settings;
  private final int partitionId;
  private final InstantSource clock;
  private final Logger log;
  private final Counters counters;
  // one per partition: the writer learns the deployments' names into it, the bulk writers fill documents from it
  private final DerivedFields derivedFields;

  private PartitionWriting(WriterSettings settings, int partitionId, InstantSource clock, Logger log,
      Counters counters) {
    this.settings = settings;
    this.partitionId = partitionId;
    this.clock = clock;
    this.log = log;
    this.counters = counters;
    this.derivedFields = new DerivedFields(settings.indexPrefix());
  }

  /** The parts of partition {@code partitionId}, timed on {@code clock}. */
  public static PartitionWriting of(WriterSettings settings, int partitionId, InstantSource clock, Logger log,
      Counters counters) {
    return new PartitionWriting(settings, partitionId, clock, log, counters);
  }

  /** The partition's writer with the read model's handlers and the settings' flush policy. */
  public ReadModelWriter writer() {
    return writer(ReadModelWriter.handlers(settings));
  }

  /** The partition's writer with other handlers (tests make one throw). */
  public ReadModelWriter writer(List<ExportHandler> handlers) {
    return new ReadModelWriter(settings, handlers, settings.flushPolicy(), partitionId, clock, log,
        counters.deadLetter(), derivedFields);
  }

  /** The retry policy of the writes, named {@code <name>-partition-<id>} in the log and the circuit breaker. */
  public RetryPolicy retry(String name) {
    return new RetryPolicy(name + "-partition-" + partitionId, settings.retryBackoff(), settings.maxRetryBackoff(),
        clock, log, counters.retry());
  }

  /**
   * Writes bulks into {@code store} on the caller's thread: documents the store refuses go to the dead letters, each
   * bulk's documents get what they take from others (names, root instances), the documents of instances deleted from
   * the read model are dropped, and each bulk marks the partition's export position.
   */
  public BulkWriter bulkWriter(SearchStore store) {
    DeadLetters deadLetters = new DeadLetters(store, settings.indexPrefix(), partitionId, DeadLetters.MAX_COPY_CHARS,
        log, counters.deadLetter(), clock);
    return new BulkWriter(store, deadLetters, settings.bulkRefresh(),
        new ExportPositionMarker(store, settings.indexPrefix(), partitionId, log), derivedFields,
        new DeletedInstanceFilter(new DeletedInstances(store, settings.indexPrefix()), partitionId));
  }

  /**
   * A session on the store of the settings, reached through {@code connector}: it connects, prepares the schema, reads
   * what {@code prepare} needs and builds its {@link #bulkWriter} on {@code background}.
   */
  public <P> StoreSession<P> session(Function<StoreConnection, SearchStore> connector, Function<SearchStore, P> prepare,
      Executor background) {
    return new StoreSession<>(settings, connector, log, this::bulkWriter, prepare, background);
  }

  /**
   * Bulks in flight (at most the settings' {@code bulks-in-flight}), each timed for {@code listener}, acknowledged in
   * log order to {@code acknowledgement}, failures told to {@code retry}.
   */
  public BulkPipeline pipeline(RetryPolicy retry, BulkPipeline.BulkListener listener,
      BulkPipeline.Acknowledgement acknowledgement) {
    return new BulkPipeline(settings.bulksInFlight(), partitionId, retry, listener, acknowledgement, clock);
  }
}
