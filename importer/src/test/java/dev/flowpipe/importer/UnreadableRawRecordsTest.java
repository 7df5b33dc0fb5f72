package dev.flowpipe.importer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.importer.config.ImporterSettings;
import dev.flowpipe.importer.source.RawRecordIndices;
import dev.flowpipe.importer.source.SyntheticRawRecords;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.writer.error.DeadLetters;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.intent.IncidentIntent;
import io.camunda.zeebe.protocol.record.intent.JobIntent;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent;
import io.camunda.zeebe.protocol.record.intent.VariableIntent;
import io.camunda.zeebe.protocol.record.value.BpmnElementType;
import io.camunda.zeebe.protocol.record.value.ProcessInstanceRecordValue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Raw documents that are no records, among good ones, on a real OpenSearch: each of a few kinds (an unknown value
 * type, an unknown intent, a key of the wrong JSON type, a malformed enum in the value, a record of another value type
 * in an index) takes the place of one record of partition 1 in its value type's sequence, as a stock exporter's index
 * damaged by hand or by a bug would hold it. The import must go on past them: the read model equals what our exporter
 * makes of the good records alone (the oracle), each bad one is in the dead letters with its raw text, where it was
 * stored and the parser's reason, counted once, and a restart neither stops at them nor dead-letters them again.
 */
@ExtendWith(SharedOpenSearch.class)
class UnreadableRawRecordsTest {

  private static final SyntheticRawRecords RECORDS =
      new SyntheticRawRecords(2, 30, Instant.parse("2026-11-27T10:00:00Z"), 100);

  /** The damage done to one record's document, and which record of partition 1 it falls on. */
  private record Damage(String kind, Predicate<Record<?>> which, Consumer<Map<String, Object>> change) {}

  private static final List<Damage> DAMAGES = List.of(
      new Damage("unknown value type", r -> r.getValueType() == ValueType.VARIABLE
          && r.getIntent() == VariableIntent.UPDATED, doc -> doc.put("valueType", "NO_SUCH_VALUE_TYPE")),
      new Damage("unknown intent", r -> r.getValueType() == ValueType.JOB && r.getIntent() == JobIntent.COMPLETED,
          doc -> doc.put("intent", "EXPLODED")),
      new Damage("wrong JSON type", r -> r.getValueType() == ValueType.INCIDENT
          && r.getIntent() == IncidentIntent.RESOLVED, doc -> doc.put("key", List.of(1, 2))),
      new Damage("malformed value", r -> r.getValueType() == ValueType.PROCESS_INSTANCE
          && r.getIntent() == ProcessInstanceIntent.ELEMENT_COMPLETED
          && ((ProcessInstanceRecordValue) r.getValue()).getBpmnElementType() == BpmnElementType.SERVICE_TASK,
          doc -> valueOf(doc).put("bpmnElementType", "NO_SUCH_ELEMENT_TYPE")),
      new Damage("another value type", r -> r.getValueType() == ValueType.JOB && r.getIntent() == JobIntent.CREATED,
          doc -> doc.put("valueType", "INCIDENT")));

  private final SearchStore store;
  private final String url;
  private final String sourcePrefix = SharedOpenSearch.uniquePrefix();
  private final String expectedPrefix = SharedOpenSearch.uniquePrefix();
  private final String actualPrefix = SharedOpenSearch.uniquePrefix();
  /** The damaged records (the third of each kind on partition 1, so good records of its type lie on both sides). */
  private final Map<SyntheticRawRecords.Stored, Damage> damaged = new LinkedHashMap<>();

  UnreadableRawRecordsTest(SearchStore store, EmbeddedSearchStore node) {
    this.store = store;
    this.url = node.url();
  }

  @BeforeEach
  void rawRecordsWithDamagedOnesAndTheReadModelOfTheGoodOnes() {
    for (Damage damage : DAMAGES) {
      damaged.put(RECORDS.records().stream().filter(s -> s.record().getPartitionId() == 1
          && damage.which().test(s.record())).skip(2).findFirst().orElseThrow(), damage);
    }
    RawRecordIndices indices = new RawRecordIndices(sourcePrefix);
    RECORDS.writeTo(store, indices, stored -> !damaged.containsKey(stored));
    List<DocumentWrite> writes = new ArrayList<>();
    damaged.forEach((stored, damage) -> {
      Map<String, Object> source = SyntheticRawRecords.source(stored);
      damage.change().accept(source);
      writes.add(SyntheticRawRecords.write(indices, stored, source));
    });
    assertThat(store.bulk(writes, true).allApplied()).as("the store takes the damaged documents").isTrue();

    for (int partition : List.of(1, 2)) {
      ExporterOracle.export(url, expectedPrefix, RECORDS.partition(partition).stream()
          .filter(record -> damaged.keySet().stream().noneMatch(s -> s.record() == record)).toList());
    }
  }

  @Test
  void stepsOverEachUnreadableRecordIntoTheDeadLettersAndImportsTheRest() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (Importer importer = Importer.start(settings(), meters)) {
      ImporterOnRealStoreTest.awaitCaughtUp(importer);
    }

    ExporterOracle.assertSameEntities(store, expectedPrefix, actualPrefix);
    List<Map<String, Object>> letters = deadLetters();
    assertThat(letters).hasSize(DAMAGES.size());
    damaged.forEach((stored, damage) -> assertThat(letters).as(damage.kind()).anySatisfy(letter -> {
      DocumentWrite where = SyntheticRawRecords.write(new RawRecordIndices(sourcePrefix), stored, Map.of());
      assertThat(letter).containsEntry("status", DeadLetters.RECORD_UNREADABLE)
          .containsEntry("partitionId", 1).containsEntry("targetIndex", where.index())
          .containsEntry("documentId", where.id());
      assertThat(((Number) letter.get("position")).longValue()).isEqualTo(stored.record().getPosition());
      assertThat((String) letter.get("reason")).isNotBlank();
      assertThat((String) letter.get("document")).contains("\"sequence\":" + stored.sequence());
    }));
    assertThat(count(meters, "flowpipe.importer.records.unreadable")).isEqualTo(DAMAGES.size());
  }

  @Test
  void aRestartNeitherStopsAtThemNorDeadLettersThemAgain() {
    try (Importer first = Importer.start(settings(), new SimpleMeterRegistry())) {
      ImporterOnRealStoreTest.awaitCaughtUp(first);
    }
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (Importer second = Importer.start(settings(), meters)) {
      ImporterOnRealStoreTest.awaitCaughtUp(second);
    }

    assertThat(count(meters, "flowpipe.importer.records.unreadable")).as("read again after the restart").isZero();
    assertThat(count(meters, "flowpipe.importer.records")).as("records imported again").isZero();
    assertThat(deadLetters()).hasSize(DAMAGES.size());
    ExporterOracle.assertSameEntities(store, expectedPrefix, actualPrefix);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> valueOf(Map<String, Object> document) {
    return (Map<String, Object>) document.get("value");
  }

  private List<Map<String, Object>> deadLetters() {
    String index = ReadModelIndex.DEAD_LETTER.indexName(actualPrefix);
    store.refresh(index);
    assertThat(store.count(index)).as("dead letters of any partition").isEqualTo(DAMAGES.size());
    return store.findByField(index, "partitionId", 1, 100);
  }

  private static double count(SimpleMeterRegistry meters, String name) {
    return meters.find(name).counters().stream().mapToDouble(Counter::count).sum();
  }

  private ImporterSettings settings() {
    return ImporterOnRealStoreTest.settings(url, sourcePrefix, actualPrefix);
  }
}
