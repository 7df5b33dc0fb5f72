package dev.flowpipe.importer.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.camunda.zeebe.protocol.record.ValueType;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The parser against the stock exporter's own serialisation: records written to JSON by Zeebe's Jackson module (what
 * the stock exporter stores) come back equal to the records written, without that module on the parser's side.
 */
class RawRecordParserTest {

  private final RawRecordParser parser = new RawRecordParser();

  @Test
  void everyRecordTheStockExporterWroteComesBackEqual() {
    var records = new SyntheticRawRecords(2, 12, Instant.parse("2026-11-27T10:00:00Z"), 7).records();

    assertThat(records).extracting(stored -> stored.record().getValueType()).contains(ValueType.PROCESS,
        ValueType.PROCESS_INSTANCE, ValueType.JOB, ValueType.VARIABLE, ValueType.INCIDENT);
    for (var stored : records) {
      RawRecord parsed = parser.parse("index", "id", stored.record().getValueType(), SyntheticRawRecords.source(stored));

      assertThat(parsed.unreadable()).as("%s", stored.record()).isNull();
      assertThat(parsed.record()).isEqualTo(stored.record());
      assertThat(parsed.sequence()).isEqualTo(stored.sequence());
    }
  }

  @Test
  void aRecordWithAnIntentItsValueTypeDoesNotKnowIsUnreadableNamingIt() {
    var stored = new SyntheticRawRecords(1, 1, Instant.parse("2026-11-27T10:00:00Z"), 7).records().getFirst();
    Map<String, Object> source = new HashMap<>(SyntheticRawRecords.source(stored));
    source.put("intent", "NOT_AN_INTENT");

    RawRecord parsed = parser.parse("index", "id", stored.record().getValueType(), source);

    assertThat(parsed.unreadable()).isNotNull();
    assertThat(parsed.unreadable().reason()).contains("NOT_AN_INTENT");
  }
}
