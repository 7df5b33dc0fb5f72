package dev.flowpipe.exporter.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.JobBatchIntent;
import io.camunda.zeebe.protocol.record.intent.JobIntent;
import io.camunda.zeebe.protocol.record.value.JobBatchRecordValue;
import io.camunda.zeebe.protocol.record.value.JobRecordValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A job's life becomes its job document: created, activated by a worker (from the job-batch record), completed,
 * failed (with retries left and the error), retries updated, timed out, error thrown, canceled.
 */
public final class JobHandler implements ExportHandler {

  private static final Set<JobIntent> HANDLED =
      Set.of(JobIntent.CREATED, JobIntent.COMPLETED, JobIntent.FAILED, JobIntent.RETRIES_UPDATED,
          JobIntent.TIMED_OUT, JobIntent.ERROR_THROWN, JobIntent.CANCELED, JobIntent.RECURRED_AFTER_BACKOFF,
          JobIntent.YIELDED, JobIntent.TIMEOUT_UPDATED, JobIntent.UPDATED);

  private final String index;

  public JobHandler(String indexPrefix) {
    this.index = ReadModelIndex.JOB.indexName(indexPrefix);
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
      List<DocumentChange> changes = new ArrayList<>(batch.getJobKeys().size());
      for (int i = 0; i < batch.getJobKeys().size(); i++) {
        JobRecordValue job = batch.getJobs().get(i);
        changes.add(DocumentChange.update(index, batch.getJobKeys().get(i), position, doc -> {
          doc.put("state", "ACTIVATED");
          doc.put("worker", job.getWorker());
          doc.put("retries", job.getRetries());
          doc.put("deadline", job.getDeadline() > 0 ? Dates.of(job.getDeadline()) : null);
        }));
      }
      return changes;
    }
    var job = (JobRecordValue) record.getValue();
    long key = record.getKey();
    JobIntent intent = (JobIntent) record.getIntent();
    if (intent == JobIntent.CREATED) {
      return List.of(DocumentChange.create(index, key, position, doc -> {
        doc.put("key", key);
        doc.put("processInstanceKey", job.getProcessInstanceKey());
        doc.put("processDefinitionKey", job.getProcessDefinitionKey());
        doc.put("elementInstanceKey", job.getElementInstanceKey());
        doc.put("elementId", job.getElementId());
        doc.put("bpmnProcessId", job.getBpmnProcessId());
        doc.put("type", job.getType());
        doc.put("retries", job.getRetries());
        doc.put("state", "CREATED");
        doc.put("tenantId", job.getTenantId());
        doc.put("partitionId", record.getPartitionId());
      }));
    }
    return List.of(DocumentChange.update(index, key, position, doc -> apply(doc, intent, job)));
  }

  private static void apply(Map<String, Object> doc, JobIntent intent, JobRecordValue job) {
    switch (intent) {
      case COMPLETED -> doc.put("state", "COMPLETED");
      case FAILED -> {
        doc.put("state", "FAILED");
        doc.put("retries", job.getRetries());
        doc.put("errorMessage", job.getErrorMessage());
      }
      case RETRIES_UPDATED -> doc.put("retries", job.getRetries());
      case TIMED_OUT -> doc.put("state", "TIMED_OUT");
      case ERROR_THROWN -> {
        doc.put("state", "ERROR_THROWN");
        doc.put("errorMessage", job.getErrorMessage());
        doc.put("errorCode", job.getErrorCode());
      }
      case CANCELED -> doc.put("state", "CANCELED");
      case RECURRED_AFTER_BACKOFF, YIELDED -> doc.put("state", "CREATED");
      case TIMEOUT_UPDATED -> doc.put("deadline", job.getDeadline() > 0 ? Dates.of(job.getDeadline()) : null);
      case UPDATED -> {
        doc.put("retries", job.getRetries());
        doc.put("deadline", job.getDeadline() > 0 ? Dates.of(job.getDeadline()) : null);
      }
      default -> {
        // not handled (see HANDLED)
      }
    }
  }
}
