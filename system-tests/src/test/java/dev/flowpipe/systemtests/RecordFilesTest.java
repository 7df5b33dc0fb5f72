package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.protocol.jackson.ZeebeProtocolModule;
import io.camunda.zeebe.protocol.record.ImmutableRecord;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.RejectionType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.VariableIntent;
import io.camunda.zeebe.protocol.record.value.ImmutableVariableRecordValue;
import io.camunda.zeebe.protocol.record.value.VariableRecordValue;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The crash suite's record file: written by {@link RecordFileExporter}, read back by {@link RecordFiles}. */
class RecordFilesTest {

  private static final ObjectMapper JSON = new ObjectMapper().registerModule(new ZeebeProtocolModule());

  @TempDir Path directory;

  @Nested
  class Reading {

    @Test
    void givesEachRecordOnceInLogOrderDroppingWhatARestartExportedAgain() throws IOException {
      write(1, line(1, "a"), line(2, "b"), line(3, "c"), line(2, "b"), line(3, "c"), line(4, "d"));
      List<Long> fed = new ArrayList<>();

      RecordFiles.Summary summary = RecordFiles.replay(directory, 1, record -> fed.add(record.getPosition()));

      assertThat(fed).containsExactly(1L, 2L, 3L, 4L);
      assertThat(summary.lines()).isEqualTo(6);
      assertThat(summary.records()).isEqualTo(4);
      assertThat(summary.repeats()).isEqualTo(2);
      assertThat(summary.lastPosition()).isEqualTo(4);
      assertThat(summary.timestampOf(3)).isEqualTo(1003);
    }

    @Test
    void failsOnAHoleInThePositions() throws IOException {
      write(1, line(1, "a"), line(2, "b"), line(4, "d"));

      assertThatThrownBy(() -> RecordFiles.replay(directory, 1, record -> { }))
          .hasMessageContaining("records 3 to 3 are missing");
    }

    @Test
    void mergesTheFilesOfSeveralNodesEachOfWhichSkipsWhatAnotherExported() throws IOException {
      // node a led positions 1-3, node b took over from 2 (its exporter's last known position) to 5, a again from 5
      write(directory.resolve("a"), 1, line(1, "a"), line(2, "b"), line(3, "c"), line(5, "e"), line(6, "f"));
      write(directory.resolve("b"), 1, line(2, "b"), line(3, "c"), line(4, "d"), line(5, "e"));
      List<Long> fed = new ArrayList<>();

      RecordFiles.Summary summary = RecordFiles.replay(List.of(directory.resolve("a"), directory.resolve("b"),
          directory.resolve("c")), 1, record -> fed.add(record.getPosition()));

      assertThat(fed).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
      assertThat(summary.lines()).isEqualTo(9);
      assertThat(summary.repeats()).isEqualTo(3);
      assertThat(RecordFiles.partitions(List.of(directory.resolve("a"), directory.resolve("c")))).containsExactly(1);
    }

    @Test
    void failsWhenTwoNodesHoldDifferentRecordsAtOnePosition() throws IOException {
      write(directory.resolve("a"), 1, line(1, "a"), line(2, "b"));
      write(directory.resolve("b"), 1, line(2, "not b"), line(3, "c"));

      assertThatThrownBy(() -> RecordFiles.replay(List.of(directory.resolve("a"), directory.resolve("b")), 1,
          record -> { })).hasMessageContaining("position 2 was exported again with different content");
    }

    @Test
    void failsOnARepeatThatIsAnotherRecord() throws IOException {
      write(1, line(1, "a"), line(2, "b"), line(2, "not b"));

      assertThatThrownBy(() -> RecordFiles.replay(directory, 1, record -> { }))
          .hasMessageContaining("position 2 was exported again with different content");
    }

    @Test
    void takesARepeatWithItsFieldsInAnotherOrderForTheSameRecord() throws IOException {
      String first = line(2, "b");
      // the same record, its value's fields written the other way round, as the broker does now and then
      String reordered = first.replace("\"name\":\"x\",\"value\":\"\\\"b\\\"\"", "\"value\":\"\\\"b\\\"\",\"name\":\"x\"");
      assertThat(reordered).isNotEqualTo(first);
      write(1, line(1, "a"), first, reordered);

      assertThat(RecordFiles.replay(directory, 1, record -> { }).repeats()).isEqualTo(1);
    }
  }

  @Nested
  class Writing {

    @Test
    void acknowledgesARecordOnlyOnceItsLineIsSynced() throws Exception {
      ExporterTestController controller = new ExporterTestController();
      RecordFileExporter exporter = open(controller);

      exporter.export(exportable(record(1, "a")));
      exporter.export(exportable(record(2, "b")));
      assertThat(controller.getPosition()).as("nothing synced yet").isEqualTo(-1);
      controller.runScheduledTasks(Duration.ofMillis(100));

      assertThat(controller.getPosition()).isEqualTo(2);
      List<Object> values = new ArrayList<>();
      RecordFiles.replay(directory, 0, record -> values.add(((VariableRecordValue) record.getValue()).getValue()));
      assertThat(values).containsExactly("\"a\"", "\"b\"");
    }

    @Test
    void cutsOffALineAKillLeftHalfWrittenWhenItOpens() throws Exception {
      Files.writeString(RecordFileExporter.fileOf(directory, 0), line(1, "a") + "\n" + line(2, "b").substring(0, 30));

      open(new ExporterTestController()).close();

      assertThat(Files.readString(RecordFileExporter.fileOf(directory, 0))).isEqualTo(line(1, "a") + "\n");
    }

    private RecordFileExporter open(ExporterTestController controller) {
      RecordFileExporter exporter = new RecordFileExporter();
      exporter.configure(new ExporterTestContext().setConfiguration(new ExporterTestConfiguration<>("recorder",
          Map.<String, Object>of(RecordFileExporter.DIRECTORY, directory.toString()), a -> a)));
      exporter.open(controller);
      return exporter;
    }
  }

  private void write(int partition, String... lines) throws IOException {
    write(directory, partition, lines);
  }

  private static void write(Path directory, int partition, String... lines) throws IOException {
    Files.createDirectories(directory);
    Files.writeString(RecordFileExporter.fileOf(directory, partition), String.join("\n", lines) + "\n");
  }

  private static String line(long position, String value) {
    try {
      return JSON.writeValueAsString(record(position, value));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Record<VariableRecordValue> record(long position, String value) {
    return ImmutableRecord.<VariableRecordValue>builder().withPosition(position).withSourceRecordPosition(-1)
        .withKey(100 + position).withTimestamp(1000 + position).withIntent(VariableIntent.CREATED).withPartitionId(1)
        .withRecordType(RecordType.EVENT).withRejectionType(RejectionType.NULL_VAL).withRejectionReason("")
        .withBrokerVersion("8.6.0").withRecordVersion(1).withValueType(ValueType.VARIABLE)
        .withValue(ImmutableVariableRecordValue.builder().withName("x").withValue("\"" + value + "\"")
            .withScopeKey(1).withProcessInstanceKey(1).withProcessDefinitionKey(2).withBpmnProcessId("p")
            .withTenantId("<default>").build())
        .build();
  }

  /** The record with the {@code toJson()} the broker's records have (the immutable one leaves it out). */
  @SuppressWarnings("unchecked")
  private static Record<VariableRecordValue> exportable(Record<VariableRecordValue> record) {
    return (Record<VariableRecordValue>) Proxy.newProxyInstance(Record.class.getClassLoader(),
        new Class<?>[] {Record.class}, (proxy, method, args) -> {
          if (method.getName().equals("toJson")) {
            return JSON.writeValueAsString(record);
          }
          try {
            return method.invoke(record, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
