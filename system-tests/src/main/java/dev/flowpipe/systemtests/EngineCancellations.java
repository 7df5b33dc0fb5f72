package dev.flowpipe.systemtests;

import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent;
import io.camunda.zeebe.protocol.record.value.BpmnElementType;
import io.camunda.zeebe.protocol.record.value.ProcessInstanceRecordValue;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import dev.flowpipe.systemtests.RecordFiles;

/**
 * What the engine's own records say about the cancellation of process instances, read from the files of
 * {@link RecordFileExporter} (independent of the read model): per instance, the CANCEL commands written to the log,
 * those the engine rejected, and the instance's ELEMENT_TERMINATED events.
 */
public final class EngineCancellations {

  /** One instance's count of each. */
  public record Counts(int commands, int rejections, int terminations) {

    /** Commands the engine accepted: each one cancels the instance. */
    int accepted() {
      return commands - rejections;
    }
  }

  private final Map<Long, int[]> counts = new HashMap<>();

  private EngineCancellations() {}

  /** Every partition's records in {@code directory}, each once. */
  public static EngineCancellations read(Path directory) throws IOException {
    EngineCancellations cancellations = new EngineCancellations();
    for (int partition : RecordFiles.partitions(directory)) {
      RecordFiles.replay(directory, partition, cancellations::note);
    }
    return cancellations;
  }

  private void note(Record<?> record) {
    if (record.getValueType() != ValueType.PROCESS_INSTANCE) {
      return;
    }
    if (record.getIntent() == ProcessInstanceIntent.CANCEL) {
      // a command carries the instance's key as its own; its value names no element type
      countOf(record.getKey())[record.getRecordType() == RecordType.COMMAND_REJECTION ? 1 : 0]++;
    } else if (record.getIntent() == ProcessInstanceIntent.ELEMENT_TERMINATED
        && record.getRecordType() == RecordType.EVENT
        && record.getValue() instanceof ProcessInstanceRecordValue value
        && value.getBpmnElementType() == BpmnElementType.PROCESS) {
      countOf(record.getKey())[2]++;
    }
  }

  private int[] countOf(long processInstanceKey) {
    return counts.computeIfAbsent(processInstanceKey, key -> new int[3]);
  }

  public Counts of(long processInstanceKey) {
    int[] count = counts.getOrDefault(processInstanceKey, new int[3]);
    return new Counts(count[0], count[1], count[2]);
  }

  /** Rejected CANCEL commands over all instances: commands sent again after a restart for what was already done. */
  public int rejections() {
    return counts.values().stream().mapToInt(count -> count[1]).sum();
  }
}
