package dev.flowpipe.benchmarks.scenario.exporter;

import dev.flowpipe.benchmarks.load.Saturation;
import dev.flowpipe.exporter.ReadModelExporter;
import dev.flowpipe.schema.store.StoreUnavailableException;
import dev.flowpipe.systemtests.CleanPass;
import dev.flowpipe.writer.config.WriterSettings;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.protocol.record.ImmutableRecord;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.JobIntent;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent;
import io.camunda.zeebe.protocol.record.intent.VariableIntent;
import io.camunda.zeebe.protocol.record.value.BpmnElementType;
import io.camunda.zeebe.protocol.record.value.ImmutableJobRecordValue;
import io.camunda.zeebe.protocol.record.value.ImmutableProcessInstanceRecordValue;
import io.camunda.zeebe.protocol.record.value.ImmutableVariableRecordValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The exporter alone: the records of {@code instances} one-service-task instances (process, start event, task, job,
 * end event, two variables: 13 records and 6 documents each), fed into our exporter as the broker would, written to a
 * real store. Records per second from the first record to the last acknowledgement.
 */
public final class ExporterThroughput {

  private ExporterThroughput() {}

  public record Result(long records, long documents, double seconds) {
    public double recordsPerSecond() {
      return records / seconds;
    }
  }

  public static Result run(String storeUrl, String prefix, int instances, int bulkSize) {
    return run(storeUrl, prefix, instances, bulkSize, true);
  }

  /** {@code bulkRefresh}: whether each bulk makes its documents searchable before it counts as durable. */
  public static Result run(String storeUrl, String prefix, int instances, int bulkSize, boolean bulkRefresh) {
    ExporterTestController controller = new ExporterTestController();
    ReadModelExporter exporter = new ReadModelExporter();
    Map<String, Object> args = new HashMap<>();
    args.put(WriterSettings.URL, storeUrl);
    args.put(WriterSettings.INDEX_PREFIX, prefix);
    args.put(WriterSettings.BULK_SIZE, bulkSize);
    args.put(WriterSettings.BULK_DELAY, "100ms");
    args.put(WriterSettings.BULK_REFRESH, bulkRefresh);
    exporter.configure(new ExporterTestContext().setConfiguration(new ExporterTestConfiguration<>("b", args, a -> a)));
    exporter.open(controller);
    long position = 0;
    long start = System.nanoTime();
    for (int i = 0; i < instances; i++) {
      for (Record<?> record : instanceRecords(i, position)) {
        CleanPass.offerUntilTaken(exporter, record);
        position = record.getPosition();
      }
    }
    exporter.close(); // flushes the rest
    double seconds = (System.nanoTime() - start) / 1e9;
    if (controller.getPosition() != position) {
      throw new IllegalStateException("not everything acknowledged: " + controller.getPosition() + " < " + position);
    }
    return new Result(position, 6L * instances, seconds);
  }

  /** The 13 records of one one-task instance, at the positions after {@code lastPosition}. */
  public static List<Record<?>> instanceRecords(int instance, long lastPosition) {
    long base = 1_000_000L * (instance + 1);
    long pi = base;
    List<Record<?>> records = new ArrayList<>(13);
    long[] position = {lastPosition};
    records.add(element(++position[0], pi, pi, "bench", BpmnElementType.PROCESS, ProcessInstanceIntent.ELEMENT_ACTIVATING));
    records.add(element(++position[0], base + 1, pi, "start", BpmnElementType.START_EVENT, ProcessInstanceIntent.ELEMENT_ACTIVATING));
    records.add(element(++position[0], base + 1, pi, "start", BpmnElementType.START_EVENT, ProcessInstanceIntent.ELEMENT_COMPLETED));
    records.add(variable(++position[0], base + 2, pi, "orderId", "\"order-" + instance + "\"", VariableIntent.CREATED));
    records.add(variable(++position[0], base + 3, pi, "amount", String.valueOf(instance % 1000), VariableIntent.CREATED));
    records.add(element(++position[0], base + 4, pi, "work", BpmnElementType.SERVICE_TASK, ProcessInstanceIntent.ELEMENT_ACTIVATING));
    records.add(job(++position[0], base + 5, pi, base + 4, JobIntent.CREATED));
    records.add(job(++position[0], base + 5, pi, base + 4, JobIntent.COMPLETED));
    records.add(variable(++position[0], base + 3, pi, "amount", String.valueOf(instance % 1000 + 1), VariableIntent.UPDATED));
    records.add(element(++position[0], base + 4, pi, "work", BpmnElementType.SERVICE_TASK, ProcessInstanceIntent.ELEMENT_COMPLETED));
    records.add(element(++position[0], base + 6, pi, "end", BpmnElementType.END_EVENT, ProcessInstanceIntent.ELEMENT_ACTIVATING));
    records.add(element(++position[0], base + 6, pi, "end", BpmnElementType.END_EVENT, ProcessInstanceIntent.ELEMENT_COMPLETED));
    records.add(element(++position[0], pi, pi, "bench", BpmnElementType.PROCESS, ProcessInstanceIntent.ELEMENT_COMPLETED));
    return records;
  }

  private static ImmutableRecord.Builder<?> record(long position, long key, ValueType type) {
    return ImmutableRecord.builder().withPosition(position).withKey(key).withTimestamp(System.currentTimeMillis())
        .withPartitionId(1).withRecordType(RecordType.EVENT).withValueType(type);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Record<?> element(long position, long key, long pi, String id, BpmnElementType type,
      ProcessInstanceIntent intent) {
    return ((ImmutableRecord.Builder) record(position, key, ValueType.PROCESS_INSTANCE)).withIntent(intent)
        .withValue(ImmutableProcessInstanceRecordValue.builder().withBpmnProcessId("bench").withVersion(1)
            .withProcessDefinitionKey(1).withProcessInstanceKey(pi).withElementId(id).withFlowScopeKey(pi)
            .withBpmnElementType(type).withParentProcessInstanceKey(-1).withParentElementInstanceKey(-1)
            .withTenantId("<default>").build())
        .build();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Record<?> variable(long position, long key, long pi, String name, String value, VariableIntent intent) {
    return ((ImmutableRecord.Builder) record(position, key, ValueType.VARIABLE)).withIntent(intent)
        .withValue(ImmutableVariableRecordValue.builder().withName(name).withValue(value).withScopeKey(pi)
            .withProcessInstanceKey(pi).withProcessDefinitionKey(1).withBpmnProcessId("bench")
            .withTenantId("<default>").build())
        .build();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Record<?> job(long position, long key, long pi, long elementInstanceKey, JobIntent intent) {
    return ((ImmutableRecord.Builder) record(position, key, ValueType.JOB)).withIntent(intent)
        .withValue(ImmutableJobRecordValue.builder().withType(Saturation.JOB_TYPE).withProcessInstanceKey(pi)
            .withElementInstanceKey(elementInstanceKey).withElementId("work").withBpmnProcessId("bench")
            .withProcessDefinitionKey(1).withRetries(3).withWorker("w").withTenantId("<default>").build())
        .build();
  }
}
