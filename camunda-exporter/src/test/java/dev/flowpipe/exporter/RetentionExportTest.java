package dev.flowpipe.exporter;

import static io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent.ELEMENT_ACTIVATING;
import static io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent.ELEMENT_COMPLETED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.retention.Period;
import dev.flowpipe.schema.retention.RetentionSettings;
import dev.flowpipe.schema.retention.RetentionStatus;
import dev.flowpipe.schema.retention.RetentionSweep;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.writer.config.WriterSettings;
import dev.flowpipe.writer.retention.RetentionArguments;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.protocol.record.ImmutableRecord;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.VariableIntent;
import io.camunda.zeebe.protocol.record.value.ImmutableVariableRecordValue;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The exporter with retention on (ADR 0011), through the official exporter harness, on a real OpenSearch: documents go
 * to the period index of their instance's key, and a replay after a period was deleted writes nothing back into it.
 */
@ExtendWith(SharedOpenSearch.class)
class RetentionExportTest {

  private static final Duration PERIOD = Duration.ofSeconds(10);
  private static final Duration KEEP = Duration.ofSeconds(30);
  private static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");

  private final SearchStore store;
  private final EmbeddedSearchStore node;
  private final String prefix = SharedOpenSearch.uniquePrefix();
  private final ExporterTestController controller = new ExporterTestController();
  private final List<Record<?>> log = new ArrayList<>();
  private ReadModelExporter exporter;

  RetentionExportTest(SearchStore store, EmbeddedSearchStore node) {
    this.store = store;
    this.node = node;
  }

  @AfterEach
  void close() {
    if (exporter != null) {
      exporter.close();
    }
  }

  @Test
  void routesEachInstanceToItsPeriodAndAReplayAfterADeletionRecreatesNothing() {
    open();
    // period A: instance 100 starts, sets a variable and ends; period B: instance 200 starts and keeps running
    export(instance(100, ELEMENT_ACTIVATING, T0.plusSeconds(1)));
    export(variable(101, 100, "amount", T0.plusSeconds(2)));
    export(instance(100, ELEMENT_COMPLETED, T0.plusSeconds(3)));
    export(instance(200, ELEMENT_ACTIVATING, T0.plus(PERIOD).plusSeconds(1)));
    export(variable(201, 200, "amount", T0.plus(PERIOD).plusSeconds(2)));
    Period a = Period.of(T0, PERIOD);
    Period b = Period.of(T0.plus(PERIOD), PERIOD);

    assertThat(idsIn(a.indexName(prefix))).containsExactlyInAnyOrder("process-instance:100", "variable:101");
    assertThat(idsIn(b.indexName(prefix))).containsExactlyInAnyOrder("process-instance:200", "variable:201");
    assertThat(store.count(ReadModelIndex.VARIABLE.indexName(prefix))).as("searched through the entity's name")
        .isEqualTo(2);

    RetentionStatus swept = new RetentionSweep(store, prefix, new RetentionSettings(KEEP, PERIOD, PERIOD),
        Clock.fixed(b.end().plus(KEEP), ZoneOffset.UTC)).sweep();
    assertThat(swept.deleted()).containsExactly(a);
    assertThat(swept.pinned()).as("by the instance still running").containsExactly(b);

    exporter.close();
    open();
    log.forEach(this::exportAgain);

    assertThat(controller.getPosition()).as("the replay was acknowledged").isEqualTo(log.size());
    assertThat(store.indexExists(a.indexName(prefix))).as("no half index recreated").isFalse();
    assertThat(store.findByField(ReadModelIndex.VARIABLE.indexName(prefix), "processInstanceKey", 100L, 10))
        .isEmpty();
    assertThat(idsIn(b.indexName(prefix))).containsExactlyInAnyOrder("process-instance:200", "variable:201");
  }

  // --- the exporter and its records

  private void open() {
    Map<String, Object> args = new HashMap<>();
    args.put(WriterSettings.URL, node.url());
    args.put(WriterSettings.INDEX_PREFIX, prefix);
    args.put(WriterSettings.BULK_SIZE, 1);
    args.put(RetentionArguments.KEEP, "30s");
    args.put(RetentionArguments.PERIOD, "10s");
    exporter = new ReadModelExporter();
    exporter.configure(new ExporterTestContext()
        .setConfiguration(new ExporterTestConfiguration<>("flowpipe", args, x -> x)));
    exporter.open(controller);
  }

  private void export(Record<?> record) {
    // the harness's exporter runs on partition 0
    Record<?> positioned = ImmutableRecord.copyOf(record).withPosition(log.size() + 1).withPartitionId(0);
    log.add(positioned);
    exportAgain(positioned);
  }

  private void exportAgain(Record<?> record) {
    exporter.export(record);
    exporter.awaitBulkInFlight();
  }

  private static Record<?> instance(long key, io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent intent,
      Instant at) {
    return ImmutableRecord.copyOf(Records.processInstance(0, key, intent)).withTimestamp(at.toEpochMilli());
  }

  private static Record<?> variable(long key, long instanceKey, String name, Instant at) {
    return ImmutableRecord.builder().withPosition(0).withKey(key).withTimestamp(at.toEpochMilli()).withPartitionId(1)
        .withRecordType(RecordType.EVENT).withValueType(ValueType.VARIABLE).withIntent(VariableIntent.CREATED)
        .withValue(ImmutableVariableRecordValue.builder().withName(name).withValue("1").withScopeKey(instanceKey)
            .withProcessInstanceKey(instanceKey).withTenantId("<default>").build())
        .build();
  }

  /** The stored ids in a physical index, as the store holds them. */
  private List<String> idsIn(String index) {
    store.refresh(index);
    List<String> ids = new ArrayList<>();
    store.admin().request("ids", "POST", "/" + index + "/_search", Map.of("size", 100, "_source", false))
        .path("hits").path("hits").forEach(hit -> ids.add(hit.path("_id").asText()));
    return ids;
  }
}
