package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ReadModelIndex;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.Intent;
import io.camunda.zeebe.protocol.record.intent.ProcessMessageSubscriptionIntent;
import io.camunda.zeebe.protocol.record.value.ProcessMessageSubscriptionRecordValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A process instance's message subscription becomes one document, in the state of its last event: CREATED, CORRELATED
 * (a non-interrupting one stays open and may correlate again), DELETED or MIGRATED (the engine's intents by the v2
 * API's names; CREATING and DELETING are the engine's steps before, not states the API shows). Each correlation also
 * becomes a document of its own ({@code <subscriptionKey>_<messageKey>}): the v2 API's correlated message
 * subscriptions.
 *
 * <p>Replay-safe: each of these events carries every field of the subscription, so each gives the whole document
 * (like a variable), and the store's position guard keeps the latest event's; a correlation's id is deterministic.
 * Zeebe 8.6's subscription records carry no process definition key: a subscription holds none (the web app reads its
 * instance's), a correlation takes the one its instance ran at the correlation when the bulk writer fills it in
 * ({@code DerivedFields}).
 */
public final class MessageSubscriptionHandler implements ExportHandler {

  private static final Set<Intent> STATES = Set.of(ProcessMessageSubscriptionIntent.CREATED,
      ProcessMessageSubscriptionIntent.CORRELATED, ProcessMessageSubscriptionIntent.DELETED,
      ProcessMessageSubscriptionIntent.MIGRATED);

  private final String subscriptions;
  private final String correlations;

  public MessageSubscriptionHandler(String indexPrefix) {
    this.subscriptions = ReadModelIndex.MESSAGE_SUBSCRIPTION.indexName(indexPrefix);
    this.correlations = ReadModelIndex.MESSAGE_CORRELATION.indexName(indexPrefix);
  }

  @Override
  public boolean handles(Record<?> record) {
    return record.getRecordType() == RecordType.EVENT
        && record.getValueType() == ValueType.PROCESS_MESSAGE_SUBSCRIPTION
        && STATES.contains(record.getIntent());
  }

  @Override
  public List<DocumentChange> changes(Record<?> record) {
    var value = (ProcessMessageSubscriptionRecordValue) record.getValue();
    long key = record.getKey();
    String date = Dates.of(record.getTimestamp());
    List<DocumentChange> changes = new ArrayList<>(2);
    changes.add(DocumentChange.create(subscriptions, key, record.getPosition())
        .put("key", key)
        .put("processInstanceKey", value.getProcessInstanceKey())
        .put("bpmnProcessId", value.getBpmnProcessId())
        .put("elementId", value.getElementId())
        .put("elementInstanceKey", value.getElementInstanceKey())
        .put("state", ((ProcessMessageSubscriptionIntent) record.getIntent()).name())
        .put("lastUpdatedDate", date)
        .put("messageName", value.getMessageName())
        .put("correlationKey", value.getCorrelationKey())
        .put("tenantId", value.getTenantId())
        .put("partitionId", record.getPartitionId())
        .build());
    if (record.getIntent() == ProcessMessageSubscriptionIntent.CORRELATED) {
      changes.add(DocumentChange.create(correlations, key + "_" + value.getMessageKey(), record.getPosition())
          .put("subscriptionKey", key)
          .put("messageKey", value.getMessageKey())
          .put("processInstanceKey", value.getProcessInstanceKey())
          .put("bpmnProcessId", value.getBpmnProcessId())
          .put("elementId", value.getElementId())
          .put("elementInstanceKey", value.getElementInstanceKey())
          .put("messageName", value.getMessageName())
          .put("correlationKey", value.getCorrelationKey())
          .put("correlationTime", date)
          .put("tenantId", value.getTenantId())
          .put("partitionId", record.getPartitionId())
          .build());
    }
    return changes;
  }
}
