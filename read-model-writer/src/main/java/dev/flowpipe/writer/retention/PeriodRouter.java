package dev.flowpipe.writer.retention;

import dev.flowpipe.writer.handler.DocumentChange;
import dev.flowpipe.schema.index.IndexLayout;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.retention.RetentionSettings;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent;
import io.camunda.zeebe.protocol.record.value.BpmnElementType;
import io.camunda.zeebe.protocol.record.value.DecisionEvaluationRecordValue;
import io.camunda.zeebe.protocol.record.value.JobBatchRecordValue;
import io.camunda.zeebe.protocol.record.value.ProcessInstanceRecordValue;
import io.camunda.zeebe.protocol.record.value.ProcessInstanceRelated;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The exporter's side of retention (ADR 0011), on the broker's actor: tags each change of an instance's documents
 * with the instance ({@link RoutedIndex}), and notes each process-instance creation, which may open a new period. Both
 * are resolved against the bucket table by {@link RoutingStore} when the store is written: the table lives in the
 * store, and the actor must not wait for it. With retention off, changes pass untouched.
 */
public final class PeriodRouter {

  /**
   * A process instance created on this partition at this record time and log position: may open the period of that
   * time.
   */
  record Creation(long instanceKey, Instant recordTime, long position) {}

  private final String prefix;
  private final int partitionId;
  private final RetentionSettings settings;
  private final IndexLayout layout;
  // written on the actor, drained by the bulk thread before it routes anything; in log order
  private final Queue<Creation> creations = new ConcurrentLinkedQueue<>();

  public PeriodRouter(String prefix, int partitionId, RetentionSettings settings, IndexLayout layout) {
    this.prefix = prefix;
    this.partitionId = partitionId;
    this.settings = settings;
    this.layout = layout;
  }

  /** The record's changes, tagged with the instance of each document; computed now (the broker reuses records). */
  public List<DocumentChange> route(Record<?> record, List<DocumentChange> changes) {
    if (!settings.enabled() || changes.isEmpty()) {
      return changes;
    }
    if (record.getValue() instanceof ProcessInstanceRecordValue instance
        && record.getIntent() == ProcessInstanceIntent.ELEMENT_ACTIVATING
        && instance.getBpmnElementType() == BpmnElementType.PROCESS) {
      creations.add(new Creation(record.getKey(), Instant.ofEpochMilli(record.getTimestamp()), record.getPosition()));
    }
    Map<String, Long> instanceOfJob = record.getValueType() == ValueType.JOB_BATCH
        && record.getValue() instanceof JobBatchRecordValue batch ? instancesOfJobs(batch) : Map.of();
    List<DocumentChange> routed = new ArrayList<>(changes.size());
    for (DocumentChange change : changes) {
      Long instanceKey = instanceOf(record);
      if (instanceKey == null) {
        instanceKey = instanceOfJob.get(change.id());
      }
      var entity = ReadModelIndex.sharedEntityOf(change.index()).filter(RoutedIndex::routes);
      if (instanceKey == null || instanceKey <= 0 || entity.isEmpty()) {
        routed.add(change);
      } else {
        String index = new RoutedIndex(change.index(), entity.get(), partitionId, instanceKey).name();
        routed.add(new DocumentChange(index, change.id(), change.position(), change.creates(), change.edits()));
      }
    }
    return routed;
  }

  /**
   * The instance the record's documents belong to, if the record says: a decision evaluation is no
   * {@link ProcessInstanceRelated} in Zeebe 8.6, but one of a business rule task names its instance, and its decision
   * instances go with that instance (a standalone evaluation names none: its documents stay in the base index).
   */
  private static Long instanceOf(Record<?> record) {
    if (record.getValue() instanceof ProcessInstanceRelated related) {
      return related.getProcessInstanceKey();
    }
    if (record.getValue() instanceof DecisionEvaluationRecordValue evaluation) {
      return evaluation.getProcessInstanceKey();
    }
    return null;
  }

  private static Map<String, Long> instancesOfJobs(JobBatchRecordValue batch) {
    Map<String, Long> instances = new HashMap<>();
    for (int i = 0; i < Math.min(batch.getJobKeys().size(), batch.getJobs().size()); i++) {
      instances.put(String.valueOf(batch.getJobKeys().get(i)), batch.getJobs().get(i).getProcessInstanceKey());
    }
    return instances;
  }

  /** The store the exporter's session writes through: routes what this router tagged (the store itself if off). */
  public SearchStore wrap(SearchStore store) {
    return settings.enabled() ? new RoutingStore(store, prefix, partitionId, settings, layout, creations) : store;
  }
}
