package dev.flowpipe.importer.source;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camunda.zeebe.protocol.jackson.ZeebeProtocolModule;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.ValueType;
import java.util.Map;

/**
 * Rebuilds {@link Record}s from the JSON the stock exporter stored, with Zeebe's own Jackson module for its protocol
 * (immutable records and values, the value class chosen by {@code valueType}). Fields the record type does not know,
 * such as the stock exporter's {@code sequence}, are ignored. A document that is no record (a malformed value, wrong
 * types, an unknown value type or intent) is given back as {@link RawRecord.Unreadable}, in its place in the sequence.
 */
public final class RawRecordParser {

  private static final TypeReference<Record<?>> RECORD = new TypeReference<>() {};

  private final ObjectMapper json =
      new ObjectMapper()
          .registerModule(new ZeebeProtocolModule())
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /**
   * @param index the index the document was read from
   * @param id its id
   * @param valueType the value type of that index
   * @param source the stored document
   * @throws IllegalArgumentException when it has no sequence (it cannot be placed among the records)
   */
  public RawRecord parse(String index, String id, ValueType valueType, Map<String, Object> source) {
    if (!(source.get("sequence") instanceof Number sequence)) {
      throw new IllegalArgumentException("raw record without a sequence: " + index + "/" + id);
    }
    try {
      Record<?> record = json.convertValue(source, RECORD);
      if (record.getValueType() != valueType) {
        throw new IllegalArgumentException("a " + record.getValueType() + " record in an index of " + valueType);
      }
      return new RawRecord(sequence.longValue(), record);
    } catch (RuntimeException e) { // Jackson wraps what it cannot map in an IllegalArgumentException; a builder may throw
      return new RawRecord(sequence.longValue(), valueType, longOf(source.get("position")),
          longOf(source.get("timestamp")), null, new RawRecord.Unreadable(index, id, text(source), reason(e)));
    }
  }

  private static long longOf(Object value) {
    return value instanceof Number number ? number.longValue() : -1;
  }

  private String text(Map<String, Object> source) {
    try {
      return json.writeValueAsString(source);
    } catch (JsonProcessingException e) {
      return String.valueOf(source);
    }
  }

  /** The parser's message without the source dump Jackson appends to it. */
  private static String reason(RuntimeException e) {
    Throwable cause = e.getCause() != null ? e.getCause() : e;
    String message = cause instanceof JsonProcessingException parsing
        ? parsing.getOriginalMessage() + pathOf(parsing) : String.valueOf(cause.getMessage());
    return message.length() > 1000 ? message.substring(0, 1000) : message;
  }

  private static String pathOf(JsonProcessingException e) {
    if (e instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
      return " (at " + mapping.getPathReference() + ")";
    }
    return "";
  }
}
