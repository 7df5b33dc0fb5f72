package dev.flowpipe.writer;

import dev.flowpipe.writer.batch.BulkFlushPolicy;
import dev.flowpipe.writer.batch.BulkFlushPolicy.Reason;
import dev.flowpipe.writer.batch.DocumentBuffer;
import dev.flowpipe.writer.batch.RecentDocuments;
import dev.flowpipe.writer.config.WriterSettings;
import dev.flowpipe.writer.handler.DecisionEvaluationHandler;
import dev.flowpipe.writer.handler.DecisionHandler;
import dev.flowpipe.writer.handler.DecisionRequirementsHandler;
import dev.flowpipe.writer.handler.CallHierarchyHandler;
import dev.flowpipe.writer.handler.DeploymentHandler;
import dev.flowpipe.writer.handler.DocumentChange;
import dev.flowpipe.writer.handler.ExportHandler;
import dev.flowpipe.writer.handler.FlowNodeInstanceHandler;
import dev.flowpipe.writer.handler.IncidentAlertHandler;
import dev.flowpipe.writer.handler.IncidentHandler;
import dev.flowpipe.writer.handler.JobHandler;
import dev.flowpipe.writer.handler.MessageSubscriptionHandler;
import dev.flowpipe.writer.handler.ProcessDefinitionHandler;
import dev.flowpipe.writer.handler.ProcessInstanceHandler;
import dev.flowpipe.writer.handler.SequenceFlowHandler;
import dev.flowpipe.writer.handler.VariableHandler;
import dev.flowpipe.writer.store.BulkWriter;
import dev.flowpipe.writer.store.DerivedFields;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.ValueType;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The one path from engine records to the read model, which the exporter (records from the broker) and the importer
 * (records read back from the stock exporter's indices) both write through: a record's document changes
 * ({@link RecordChanges}, the handlers), folded per document in a {@link DocumentBuffer}, written when the
 * {@link BulkFlushPolicy} says so, by a {@link BulkWriter} (the exporter hands batches to its
 * {@link dev.flowpipe.writer.batch.BulkPipeline}; the importer writes in place with {@link #flush}).
 *
 * <p>What is durable is the caller's to acknowledge: the exporter to the broker, the importer in its cursor. Time
 * comes from the clock handed in, never the system's.
 *
 * <p>One instance per partition, used from one thread (the broker's actor, an importer's partition thread).
 */
public final class ReadModelWriter {

  /** The value types the handlers read (events only): what the exporter takes and the importer reads. */
  public static final Set<ValueType> VALUE_TYPES =
      Set.of(ValueType.PROCESS, ValueType.PROCESS_INSTANCE, ValueType.VARIABLE, ValueType.INCIDENT, ValueType.JOB,
          ValueType.JOB_BATCH, ValueType.PROCESS_MESSAGE_SUBSCRIPTION, ValueType.DECISION,
          ValueType.DECISION_REQUIREMENTS, ValueType.DECISION_EVALUATION);

  private final RecordChanges recordChanges;
  private final DocumentBuffer buffer;
  private final BulkFlushPolicy policy;
  private final InstantSource clock;
  private final DerivedFields derivedFields;

  /**
   * Built by {@link PartitionWriting}, the one place that makes a partition's writing parts.
   *
   * @param handlers the record-to-document transformation ({@link #handlers(WriterSettings)}; tests hand in one that
   *     throws)
   * @param policy when the buffer is due (the importer passes its own delay)
   * @param deadLetterCounter counts each record whose handler failed and that went to the dead letters
   * @param derivedFields the partition's (learns the deployments' names from this writer's records)
   */
  public ReadModelWriter(WriterSettings settings, List<ExportHandler> handlers, BulkFlushPolicy policy, int partitionId,
      InstantSource clock, Logger log, Runnable deadLetterCounter, DerivedFields derivedFields) {
    this.derivedFields = derivedFields;
    List<ExportHandler> all = new java.util.ArrayList<>(handlers);
    all.add(new DeploymentHandler(derivedFields));
    all.add(new CallHierarchyHandler(derivedFields));
    this.recordChanges = new RecordChanges(all, settings.indexPrefix(), partitionId, clock, log, deadLetterCounter);
    this.buffer = new DocumentBuffer(new RecentDocuments(settings.recentDocuments()));
    this.policy = policy;
    this.clock = clock;
  }

  /**
   * What the bulk writer of this partition fills in from other documents, with what this writer learned from the
   * partition's deployment records: hand it to the {@link BulkWriter} (the store session's) that writes this buffer.
   */
  public DerivedFields derivedFields() {
    return derivedFields;
  }

  /** The one record-to-document transformation. */
  public static List<ExportHandler> handlers(WriterSettings settings) {
    return handlers(settings.indexPrefix(), settings.variableValueLimit());
  }

  /** The handlers writing under {@code prefix}, truncating variable values above {@code variableValueLimit}. */
  public static List<ExportHandler> handlers(String prefix, int variableValueLimit) {
    return List.of(
        new ProcessDefinitionHandler(prefix),
        new ProcessInstanceHandler(prefix),
        new FlowNodeInstanceHandler(prefix),
        new VariableHandler(prefix, variableValueLimit),
        new IncidentHandler(prefix),
        new IncidentAlertHandler(prefix),
        new JobHandler(prefix),
        new SequenceFlowHandler(prefix),
        new MessageSubscriptionHandler(prefix),
        new DecisionHandler(prefix),
        new DecisionRequirementsHandler(prefix),
        new DecisionEvaluationHandler(prefix));
  }

  /**
   * The document changes of {@code record}, computed now: the broker reuses a record object for the next record of
   * its value type. A handler that fails yields a dead letter instead of its changes.
   */
  public List<DocumentChange> changes(Record<?> record) {
    return recordChanges.of(record);
  }

  /** Buffers the changes of the record at {@code position} (engine time {@code timestamp}). */
  public void accept(List<DocumentChange> changes, long position, long timestamp) {
    buffer.add(changes, position, timestamp, nanos());
  }

  /**
   * Buffers the changes of the record at {@code position}, with the batches of the bulks in flight that a change may
   * have to wait for (see {@link DocumentBuffer}).
   */
  public void accept(List<DocumentChange> changes, long position, long timestamp, List<DocumentBuffer> inFlight) {
    buffer.add(changes, position, timestamp, nanos(), inFlight);
  }

  /** Why the buffer is due to be written now, if it is. */
  public Optional<Reason> due() {
    return policy.due(buffer, nanos());
  }

  /** Whether the buffer holds a bulk's worth (by count or memory): a caller that can stop feeding it stops here. */
  public boolean holdsABulk() {
    return buffer.size() >= policy.size() || buffer.estimatedBytes() >= policy.memoryLimitBytes();
  }

  /** Past twice a bulk's worth: a caller that cannot stop feeding must wait for a flush (see the policy). */
  public boolean full() {
    return policy.full(buffer);
  }

  /** Nanos until the buffer's oldest change has waited the bulk delay (the delay when empty). */
  public long nanosUntilDelay() {
    return policy.nanosUntilDelay(buffer, nanos());
  }

  /**
   * Writes everything buffered now, on this thread, through {@code writer}; what could not be written stays buffered
   * for the next attempt.
   */
  public BulkWriter.Result flush(BulkWriter writer) {
    return writer.flush(buffer);
  }

  /** The buffer itself, for a caller that hands batches to bulks in flight (the exporter's pipeline). */
  public DocumentBuffer buffer() {
    return buffer;
  }

  public BulkFlushPolicy policy() {
    return policy;
  }

  /** The clock's time in nanos: the buffer's ages are measured on it. */
  public long nanos() {
    var now = clock.instant();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }
}
