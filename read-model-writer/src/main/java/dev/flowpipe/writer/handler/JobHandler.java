package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ElementEntries;
import dev.flowpipe.schema.index.ReadModelIndex;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.JobBatchIntent;
import io.camunda.zeebe.protocol.record.intent.JobIntent;
import io.camunda.zeebe.protocol.record.value.JobBatchRecordValue;
import io.camunda.zeebe.protocol.record.value.JobKind;
import io.camunda.zeebe.protocol.record.value.JobListenerEventType;
import io.camunda.zeebe.protocol.record.value.JobRecordValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A job's life becomes its job document: created, activated by a worker (from the job-batch record), completed,
 * failed (with retries left and the error), retries updated, timed out, error thrown, canceled. Zeebe 8.6 records
 * carry the job's kind (BPMN_ELEMENT, or EXECUTION_LISTENER for an execution listener's job) and listener event type
 * (START, END; UNSPECIFIED for a task's own job) and its custom headers; they carry nothing of task listeners' denials
 * (8.8), so {@code isDenied} and {@code deniedReason} are not held. {@code creationTime}, {@code lastUpdateTime} and
 * {@code endTime} (completed, error thrown, canceled) are the records' engine times. A migration moves the job with
 * its element ({@code MIGRATED}: the target definition's key and process id, the target element's id); its state and
 * times stay. Beside each state, {@code stateOrder}: its place in the v2 API's order of job states, in which ACTIVATED
 * is CREATED (the API answers it so), so a sort on the state keeps each answered state's jobs together.
 */
public final class JobHandler implements ExportHandler {

  private static final Set<JobIntent> HANDLED =
      Set.of(JobIntent.CREATED, JobIntent.COMPLETED, JobIntent.FAILED, JobIntent.RETRIES_UPDATED,
          JobIntent.TIMED_OUT, JobIntent.ERROR_THROWN, JobIntent.CANCELED, JobIntent.RECURRED_AFTER_BACKOFF,
          JobIntent.YIELDED, JobIntent.TIMEOUT_UPDATED, JobIntent.UPDATED, JobIntent.MIGRATED);

  private final String index;
  private final String instances;

  public JobHandler(String indexPrefix) {
    this.index = ReadModelIndex.JOB.indexName(indexPrefix);
    this.instances = ReadModelIndex.PROCESS_INSTANCE.indexName(indexPrefix);
  }

  @Override
  public boolean handles(Record<?> record) {
    if (record.getRecordType() != RecordType.EVENT) {
      return false;
    }
    return (record.getValueType() == ValueType.JOB && HANDLED.contains((JobIntent) record.getIntent()))
        || (record.getValueType() == ValueType.JOB_BATCH && record.getIntent() == JobBatchIntent.ACTIVATED);
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    long position = record.getPosition();
    if (record.getValueType() == ValueType.JOB_BATCH) {
      var batch = (JobBatchRecordValue) record.getValue();
      // each getter builds a new list (of copies, for the jobs with their variables): call each once
      List<Long> keys = batch.getJobKeys();
      List<JobRecordValue> jobs = batch.getJobs();
      List<DocumentChange> changes = new ArrayList<>(keys.size());
      for (int i = 0; i < keys.size(); i++) {
        JobRecordValue job = jobs.get(i);
        changes.add(DocumentChange.update(index, keys.get(i), position)
            .put("state", "ACTIVATED").put("stateOrder", stateOrder("ACTIVATED"))
            .put("lastUpdateTime", Dates.of(record.getTimestamp()))
            .put("worker", job.getWorker())
            .put("retries", job.getRetries())
            .put("deadline", deadline(job))
            .build());
      }
      return changes;
    }
    var job = (JobRecordValue) record.getValue();
    long key = record.getKey();
    JobIntent intent = (JobIntent) record.getIntent();
    String time = Dates.of(record.getTimestamp());
    if (intent == JobIntent.CREATED) {
      return List.of(DocumentChange.create(index, key, position)
          .put("key", key)
          .put("processInstanceKey", job.getProcessInstanceKey())
          .put("processDefinitionKey", job.getProcessDefinitionKey())
          .put("elementInstanceKey", job.getElementInstanceKey())
          .put("elementId", job.getElementId())
          .put("bpmnProcessId", job.getBpmnProcessId())
          .put("type", job.getType())
          .put("worker", job.getWorker())
          .put("retries", job.getRetries())
          .put("state", "CREATED").put("stateOrder", stateOrder("CREATED"))
          .put("jobKind", job.getJobKind() == null ? JobKind.BPMN_ELEMENT.name() : job.getJobKind().name())
          .put("listenerEventType", job.getJobListenerEventType() == null
              ? JobListenerEventType.UNSPECIFIED.name() : job.getJobListenerEventType().name())
          .edit(new FieldEdit.PutStrings("customHeaders", job.getCustomHeaders()))
          .put("hasFailedWithRetriesLeft", false)
          .put("creationTime", time)
          .put("lastUpdateTime", time)
          .put("tenantId", job.getTenantId())
          .put("partitionId", record.getPartitionId())
          .build());
    }
    if (intent == JobIntent.MIGRATED) {
      return List.of(DocumentChange.update(index, key, position)
          .put("processDefinitionKey", job.getProcessDefinitionKey())
          .put("bpmnProcessId", job.getBpmnProcessId())
          .put("elementId", job.getElementId())
          .build());
    }
    var change = DocumentChange.update(index, key, position).put("lastUpdateTime", time);
    switch (intent) {
      case COMPLETED -> change.put("state", "COMPLETED").put("stateOrder", stateOrder("COMPLETED"))
          .put("endTime", time).put("hasFailedWithRetriesLeft", false);
      // the flag says the job's last failure left it retries and it has not ended since (Operate's "has retries left")
      case FAILED -> change.put("state", "FAILED").put("stateOrder", stateOrder("FAILED"))
          .put("retries", job.getRetries())
          .put("errorMessage", job.getErrorMessage()).put("hasFailedWithRetriesLeft", job.getRetries() > 0);
      case RETRIES_UPDATED -> change.put("retries", job.getRetries());
      case TIMED_OUT -> change.put("state", "TIMED_OUT").put("stateOrder", stateOrder("TIMED_OUT"));
      case ERROR_THROWN -> change.put("state", "ERROR_THROWN").put("stateOrder", stateOrder("ERROR_THROWN"))
          .put("errorMessage", job.getErrorMessage())
          .put("errorCode", job.getErrorCode()).put("endTime", time).put("hasFailedWithRetriesLeft", false);
      case CANCELED -> change.put("state", "CANCELED").put("stateOrder", stateOrder("CANCELED"))
          .put("endTime", time).put("hasFailedWithRetriesLeft", false);
      case RECURRED_AFTER_BACKOFF, YIELDED -> change.put("state", "CREATED").put("stateOrder", stateOrder("CREATED"));
      case TIMEOUT_UPDATED -> change.put("deadline", deadline(job));
      case UPDATED -> change.put("retries", job.getRetries()).put("deadline", deadline(job));
      default -> {
        // not handled (see HANDLED)
      }
    }
    Boolean retriesLeft = switch (intent) {
      case FAILED -> job.getRetries() > 0;
      case COMPLETED, ERROR_THROWN, CANCELED -> false;
      default -> null;
    };
    if (retriesLeft == null) {
      return List.of(change.build());
    }
    // the instance keeps the keys of its jobs that failed with retries left, for the filter hasRetriesLeft (ADR 15)
    return List.of(change.build(), DocumentChange.update(instances, job.getProcessInstanceKey(), position)
        .edit(new FieldEdit.KeyInList(ElementEntries.RETRIES_LEFT_JOB_KEYS, key, retriesLeft))
        .edit(new FieldEdit.FlagNotEmpty(ElementEntries.HAS_RETRIES_LEFT, ElementEntries.RETRIES_LEFT_JOB_KEYS))
        .put(ProcessInstanceHandler.LAST_UPDATE, time)
        .build());
  }

  private static String deadline(JobRecordValue job) {
    return job.getDeadline() > 0 ? Dates.of(job.getDeadline()) : null;
  }

  /** The v2 job state's place in the spec's (alphabetical) order; ACTIVATED is answered as CREATED. */
  static int stateOrder(String state) {
    return switch (state) {
      case "CANCELED" -> 0;
      case "COMPLETED" -> 1;
      case "CREATED", "ACTIVATED" -> 2;
      case "ERROR_THROWN" -> 3;
      case "FAILED" -> 4;
      case "TIMED_OUT" -> 7;
      default -> throw new IllegalArgumentException("not a job state this handler writes: " + state);
    };
  }
}
