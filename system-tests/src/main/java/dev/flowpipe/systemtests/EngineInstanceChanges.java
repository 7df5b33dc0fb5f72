package dev.flowpipe.systemtests;

import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceMigrationIntent;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceModificationIntent;
import io.camunda.zeebe.protocol.record.value.ProcessInstanceMigrationRecordValue;
import io.camunda.zeebe.protocol.record.value.ProcessInstanceModificationRecordValue;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * What the engine's own records say about migrations and modifications of process instances, read from the files of
 * {@link RecordFileExporter} (independent of the read model and of the web app): per instance, the MIGRATED and
 * MODIFIED events (each one a command the engine carried out) and the MIGRATE and MODIFY commands it rejected.
 */
public final class EngineInstanceChanges {

  /** One instance's count of each. */
  public record Counts(int migrated, int migrationsRejected, int modified, int modificationsRejected) {}

  private final Map<Long, int[]> counts = new HashMap<>();

  private EngineInstanceChanges() {}

  /** Every partition's records in {@code directory}, each once. */
  public static EngineInstanceChanges read(Path directory) throws IOException {
    EngineInstanceChanges changes = new EngineInstanceChanges();
    for (int partition : RecordFiles.partitions(directory)) {
      RecordFiles.replay(directory, partition, changes::note);
    }
    return changes;
  }

  private void note(Record<?> record) {
    boolean rejected = record.getRecordType() == RecordType.COMMAND_REJECTION;
    boolean event = record.getRecordType() == RecordType.EVENT;
    if (record.getValueType() == ValueType.PROCESS_INSTANCE_MIGRATION
        && record.getValue() instanceof ProcessInstanceMigrationRecordValue value) {
      if (event && record.getIntent() == ProcessInstanceMigrationIntent.MIGRATED) {
        countOf(value.getProcessInstanceKey())[0]++;
      } else if (rejected && record.getIntent() == ProcessInstanceMigrationIntent.MIGRATE) {
        countOf(value.getProcessInstanceKey())[1]++;
      }
    } else if (record.getValueType() == ValueType.PROCESS_INSTANCE_MODIFICATION
        && record.getValue() instanceof ProcessInstanceModificationRecordValue value) {
      if (event && record.getIntent() == ProcessInstanceModificationIntent.MODIFIED) {
        countOf(value.getProcessInstanceKey())[2]++;
      } else if (rejected && record.getIntent() == ProcessInstanceModificationIntent.MODIFY) {
        countOf(value.getProcessInstanceKey())[3]++;
      }
    }
  }

  private int[] countOf(long processInstanceKey) {
    return counts.computeIfAbsent(processInstanceKey, key -> new int[4]);
  }

  public Counts of(long processInstanceKey) {
    int[] count = counts.getOrDefault(processInstanceKey, new int[4]);
    return new Counts(count[0], count[1], count[2], count[3]);
  }
}
