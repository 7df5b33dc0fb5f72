package dev.flowpipe.importer.source;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camunda.zeebe.protocol.jackson.ZeebeProtocolModule;
import io.camunda.zeebe.protocol.record.Record;
import java.util.Map;

/**
 * Rebuilds {@link Record}s from the JSON the stock exporter stored, with Zeebe's own Jackson module for its protocol
 * (immutable records and values, the value class chosen by {@code valueType}). Fields the record type does not know,
 * such as the stock exporter's {@code sequence}, are ignored.
 */
public final class RawRecordParser {

  private static final TypeReference<Record<?>> RECORD = new TypeReference<>() {};

  private final ObjectMapper json =
      new ObjectMapper()
          .registerModule(new ZeebeProtocolModule())
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /**
   * @param source the stored document
   * @throws IllegalArgumentException when it has no sequence or is not a record
   */
  public RawRecord parse(Map<String, Object> source) {
    if (!(source.get("sequence") instanceof Number sequence)) {
      throw new IllegalArgumentException("raw record without a sequence: " + source.get("position"));
    }
    return new RawRecord(sequence.longValue(), json.convertValue(source, RECORD));
  }
}
