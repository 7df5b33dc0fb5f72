package dev.flowpipe.importer.source;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.protocol.Protocol;
import io.camunda.zeebe.protocol.jackson.ZeebeProtocolModule;
import io.camunda.zeebe.protocol.record.ImmutableRecord;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.RecordValue;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.DecisionEvaluationIntent;
import io.camunda.zeebe.protocol.record.intent.DecisionIntent;
import io.camunda.zeebe.protocol.record.intent.DecisionRequirementsIntent;
import io.camunda.zeebe.protocol.record.intent.IncidentIntent;
import io.camunda.zeebe.protocol.record.intent.Intent;
import io.camunda.zeebe.protocol.record.intent.JobIntent;
import io.camunda.zeebe.protocol.record.intent.ProcessMessageSubscriptionIntent;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent;
import io.camunda.zeebe.protocol.record.intent.ProcessIntent;
import io.camunda.zeebe.protocol.record.intent.VariableIntent;
import io.camunda.zeebe.protocol.record.value.BpmnElementType;
import io.camunda.zeebe.protocol.record.value.ErrorType;
import io.camunda.zeebe.protocol.record.value.ImmutableDecisionEvaluationRecordValue;
import io.camunda.zeebe.protocol.record.value.ImmutableEvaluatedDecisionValue;
import io.camunda.zeebe.protocol.record.value.ImmutableEvaluatedInputValue;
import io.camunda.zeebe.protocol.record.value.ImmutableEvaluatedOutputValue;
import io.camunda.zeebe.protocol.record.value.ImmutableIncidentRecordValue;
import io.camunda.zeebe.protocol.record.value.ImmutableMatchedRuleValue;
import io.camunda.zeebe.protocol.record.value.ImmutableJobRecordValue;
import io.camunda.zeebe.protocol.record.value.ImmutableProcessInstanceRecordValue;
import io.camunda.zeebe.protocol.record.value.ImmutableProcessMessageSubscriptionRecordValue;
import io.camunda.zeebe.protocol.record.value.ImmutableVariableRecordValue;
import io.camunda.zeebe.protocol.record.value.deployment.ImmutableDecisionRecordValue;
import io.camunda.zeebe.protocol.record.value.deployment.ImmutableDecisionRequirementsRecordValue;
import io.camunda.zeebe.protocol.record.value.deployment.ImmutableProcess;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Raw records as the stock exporter stores them, made up for tests: per partition, instances of a one-task process,
 * each with a variable created and updated, a job created and completed, and every third with an incident created and
 * resolved on its task (so records of different value types change the same documents). Positions rise by one per
 * record; sequences count per partition and value type from 1, as the stock exporter numbers them; timestamps rise by
 * {@code stepMillis} from {@code start}, and each record goes to the index of its timestamp's day, so a run across
 * midnight lands in two day-indices.
 */
public final class SyntheticRawRecords {

  private static final ObjectMapper JSON = new ObjectMapper().registerModule(new ZeebeProtocolModule());
  private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);
  private static final String BPMN = "<definitions><process id=\"synthetic\" name=\"Synthetic\"/></definitions>";

  /** One record with the sequence the stock exporter gave it. */
  public record Stored(long sequence, Record<?> record) {}

  private final List<Stored> records = new ArrayList<>();

  /** {@code instances} instances on each of the partitions 1..{@code partitions}. */
  public SyntheticRawRecords(int partitions, int instances, Instant start, long stepMillis) {
    for (int partition = 1; partition <= partitions; partition++) {
      new PartitionLog(partition, start, stepMillis).write(instances, records);
    }
  }

  public List<Stored> records() {
    return records;
  }

  /** The records of one partition in log order. */
  public List<Record<?>> partition(int partitionId) {
    return records.stream().filter(s -> s.record().getPartitionId() == partitionId).<Record<?>>map(Stored::record)
        .toList();
  }

  /** Writes the records that {@code which} selects into their day-indices, as the stock exporter would, searchable. */
  @SuppressWarnings("unchecked")
  public void writeTo(SearchStore store, RawRecordIndices indices, Predicate<Stored> which) {
    List<DocumentWrite> writes = new ArrayList<>();
    for (Stored stored : records) {
      if (!which.test(stored)) {
        continue;
      }
      writes.add(write(indices, stored, source(stored)));
    }
    for (int from = 0; from < writes.size(); from += 500) {
      var outcome = store.bulk(writes.subList(from, Math.min(writes.size(), from + 500)));
      if (!outcome.allApplied()) {
        throw new IllegalStateException("raw records not written: " + outcome.failures());
      }
    }
    // searchable now, as after the stock indices' next refresh: a test can then expect the importer to see them
    store.refresh(indices.prefix() + "_*");
  }

  /** The document the stock exporter stores for a record: its JSON and its sequence. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> source(Stored stored) {
    Map<String, Object> source = JSON.convertValue(stored.record(), Map.class);
    source.put("sequence", stored.sequence());
    return source;
  }

  /** The write of {@code source} where the stock exporter stores {@code stored}: its day-index, its id. */
  public static DocumentWrite write(RawRecordIndices indices, Stored stored, Map<String, Object> source) {
    Record<?> record = stored.record();
    String index = indices.dayIndex(record.getValueType(), "8.6.0",
        DAY.format(Instant.ofEpochMilli(record.getTimestamp())));
    return new DocumentWrite(index, record.getPartitionId() + "-" + record.getPosition(), record.getPosition(),
        source);
  }

  /** One partition's log: keys, positions, sequences and times as the engine and the stock exporter give them. */
  private static final class PartitionLog {
    private final int partition;
    private final Map<ValueType, Long> counters = new EnumMap<>(ValueType.class);
    private long position;
    private long nextKey;
    private long time;
    private final long stepMillis;
    private List<Stored> out;

    PartitionLog(int partition, Instant start, long stepMillis) {
      this.partition = partition;
      this.time = start.toEpochMilli();
      this.stepMillis = stepMillis;
    }

    void write(int instances, List<Stored> out) {
      this.out = out;
      long definition = Protocol.encodePartitionId(1, 1);
      add(ValueType.PROCESS, ProcessIntent.CREATED, definition, ImmutableProcess.builder().withBpmnProcessId("synthetic")
          .withVersion(1).withProcessDefinitionKey(definition).withResourceName("synthetic.bpmn")
          .withResource(BPMN.getBytes(StandardCharsets.UTF_8)).withTenantId("<default>").build());
      // a DRD with one decision, which every second instance evaluates in a business rule task
      long requirements = Protocol.encodePartitionId(1, 2);
      long decision = Protocol.encodePartitionId(1, 3);
      add(ValueType.DECISION_REQUIREMENTS, DecisionRequirementsIntent.CREATED, requirements,
          ImmutableDecisionRequirementsRecordValue.builder().withDecisionRequirementsId("synthetic-drd")
              .withDecisionRequirementsName("Synthetic DRD").withDecisionRequirementsVersion(1)
              .withDecisionRequirementsKey(requirements).withResourceName("synthetic.dmn").withNamespace("synthetic")
              .withResource("<definitions id=\"synthetic-drd\"/>".getBytes(StandardCharsets.UTF_8))
              .withTenantId("<default>").build());
      add(ValueType.DECISION, DecisionIntent.CREATED, decision, ImmutableDecisionRecordValue.builder()
          .withDecisionId("synthetic-decision").withDecisionName("Synthetic decision").withVersion(1)
          .withDecisionKey(decision).withDecisionRequirementsId("synthetic-drd")
          .withDecisionRequirementsKey(requirements).withTenantId("<default>").build());
      for (int i = 0; i < instances; i++) {
        instance(i, definition);
        if (i % 2 == 1) {
          evaluation(i, definition, decision, requirements);
        }
      }
    }

    private void evaluation(int i, long definition, long decision, long requirements) {
      var evaluated = ImmutableEvaluatedDecisionValue.builder().withDecisionId("synthetic-decision")
          .withDecisionName("Synthetic decision").withDecisionKey(decision).withDecisionVersion(1)
          .withDecisionType("DECISION_TABLE").withDecisionOutput("\"out-" + i + "\"").withTenantId("<default>")
          .withEvaluatedInputs(List.of(ImmutableEvaluatedInputValue.builder().withInputId("in").withInputName("In")
              .withInputValue(String.valueOf(i)).build()))
          .withMatchedRules(List.of(ImmutableMatchedRuleValue.builder().withRuleId("rule-" + i % 3).withRuleIndex(1)
              .withEvaluatedOutputs(List.of(ImmutableEvaluatedOutputValue.builder().withOutputId("out")
                  .withOutputName("Out").withOutputValue("\"out-" + i + "\"").build()))
              .build()))
          .build();
      add(ValueType.DECISION_EVALUATION, DecisionEvaluationIntent.EVALUATED, key(),
          ImmutableDecisionEvaluationRecordValue.builder().withDecisionId("synthetic-decision")
              .withDecisionKey(decision).withDecisionRequirementsId("synthetic-drd")
              .withDecisionRequirementsKey(requirements).withDecisionOutput("\"out-" + i + "\"")
              .withBpmnProcessId("synthetic").withProcessDefinitionKey(definition).withProcessInstanceKey(key())
              .withElementId("rule-task").withElementInstanceKey(key()).withEvaluatedDecisions(List.of(evaluated))
              .withTenantId("<default>").build());
    }

    private void instance(int i, long definition) {
      long instance = key();
      long task = key();
      long job = key();
      long variable = key();
      element(instance, instance, BpmnElementType.PROCESS, "synthetic", ProcessInstanceIntent.ELEMENT_ACTIVATING,
          definition);
      add(ValueType.VARIABLE, VariableIntent.CREATED, variable, variable(instance, "\"first-" + i + "\"", definition));
      element(key(), instance, BpmnElementType.SEQUENCE_FLOW, "to-task", ProcessInstanceIntent.SEQUENCE_FLOW_TAKEN,
          definition);
      element(task, instance, BpmnElementType.SERVICE_TASK, "task", ProcessInstanceIntent.ELEMENT_ACTIVATING,
          definition);
      if (i % 2 == 0) {
        // a message subscription of the task (a boundary event), correlated once and deleted when the task ends
        long subscription = key();
        add(ValueType.PROCESS_MESSAGE_SUBSCRIPTION, ProcessMessageSubscriptionIntent.CREATED, subscription,
            subscription(instance, task, -1));
        add(ValueType.PROCESS_MESSAGE_SUBSCRIPTION, ProcessMessageSubscriptionIntent.CORRELATED, subscription,
            subscription(instance, task, key()));
      }
      add(ValueType.JOB, JobIntent.CREATED, job, job(instance, task, definition, 3));
      if (i % 3 == 0) {
        long incident = key();
        var value = ImmutableIncidentRecordValue.builder().withErrorType(ErrorType.JOB_NO_RETRIES)
            .withErrorMessage("no retries " + i).withBpmnProcessId("synthetic").withProcessDefinitionKey(definition)
            .withProcessInstanceKey(instance).withElementId("task").withElementInstanceKey(task).withJobKey(job)
            .withVariableScopeKey(task).withTenantId("<default>").build();
        add(ValueType.INCIDENT, IncidentIntent.CREATED, incident, value);
        add(ValueType.INCIDENT, IncidentIntent.RESOLVED, incident, value);
      }
      add(ValueType.JOB, JobIntent.COMPLETED, job, job(instance, task, definition, 3));
      add(ValueType.VARIABLE, VariableIntent.UPDATED, variable, variable(instance, "\"second-" + i + "\"", definition));
      element(task, instance, BpmnElementType.SERVICE_TASK, "task", ProcessInstanceIntent.ELEMENT_COMPLETED,
          definition);
      element(instance, instance, BpmnElementType.PROCESS, "synthetic", ProcessInstanceIntent.ELEMENT_COMPLETED,
          definition);
    }

    private void element(long key, long instance, BpmnElementType type, String elementId, Intent intent,
        long definition) {
      add(ValueType.PROCESS_INSTANCE, intent, key, ImmutableProcessInstanceRecordValue.builder()
          .withBpmnProcessId("synthetic").withVersion(1).withProcessDefinitionKey(definition)
          .withProcessInstanceKey(instance).withElementId(elementId).withFlowScopeKey(type == BpmnElementType.PROCESS
              ? -1 : instance).withBpmnElementType(type).withParentProcessInstanceKey(-1)
          .withParentElementInstanceKey(-1).withTenantId("<default>").build());
    }

    private static RecordValue variable(long instance, String value, long definition) {
      return ImmutableVariableRecordValue.builder().withName("v").withValue(value).withScopeKey(instance)
          .withProcessInstanceKey(instance).withProcessDefinitionKey(definition).withBpmnProcessId("synthetic")
          .withTenantId("<default>").build();
    }

    private static RecordValue subscription(long instance, long task, long messageKey) {
      return ImmutableProcessMessageSubscriptionRecordValue.builder().withProcessInstanceKey(instance)
          .withElementInstanceKey(task).withElementId("task").withBpmnProcessId("synthetic").withMessageKey(messageKey)
          .withMessageName("paid").withCorrelationKey("c-" + instance).withInterrupting(false)
          .withTenantId("<default>").build();
    }

    private static RecordValue job(long instance, long task, long definition, int retries) {
      return ImmutableJobRecordValue.builder().withType("work").withRetries(retries).withProcessInstanceKey(instance)
          .withElementInstanceKey(task).withElementId("task").withBpmnProcessId("synthetic")
          .withProcessDefinitionKey(definition).withProcessDefinitionVersion(1).withTenantId("<default>").build();
    }

    private long key() {
      return Protocol.encodePartitionId(partition, ++nextKey + 100);
    }

    private void add(ValueType type, Intent intent, long key, RecordValue value) {
      long counter = counters.merge(type, 1L, Long::sum);
      time += stepMillis;
      Record<?> record = ImmutableRecord.<RecordValue>builder().withPosition(++position).withSourceRecordPosition(position - 1)
          .withKey(key).withTimestamp(time).withIntent(intent).withPartitionId(partition)
          .withRecordType(RecordType.EVENT).withValueType(type).withBrokerVersion("8.6.0").withRecordVersion(1)
          .withValue(value).build();
      out.add(new Stored(Sequences.of(partition, counter), record));
    }
  }
}
