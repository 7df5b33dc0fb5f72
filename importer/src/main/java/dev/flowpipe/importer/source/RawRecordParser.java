package dev.flowpipe.importer.source;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camunda.zeebe.protocol.record.ImmutableRecord;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.RecordValue;
import io.camunda.zeebe.protocol.record.RejectionType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.camunda.zeebe.protocol.record.ValueTypeMapping;
import io.camunda.zeebe.protocol.record.intent.Intent;
import java.util.Map;

/**
 * Rebuilds {@link Record}s from the JSON the stock exporter stored: the value and intent classes are the ones Zeebe's
 * protocol maps to the record's {@code valueType} ({@link ValueTypeMapping}), and the value is built through the
 * protocol's own immutable builders ({@link ProtocolBuilders}). Zeebe's Jackson module is not used: it is under the
 * Camunda License, and the importer ships only open-source code. Fields the record type does not know,
 * such as the stock exporter's {@code sequence}, are ignored. A document that is no record (a malformed value, wrong
 * types, an unknown value type or intent) is given back as {@link RawRecord.Unreadable}, in its place in the sequence.
 */
public final class RawRecordParser {

  private final ObjectMapper json =
      new ObjectMapper()
          .setAnnotationIntrospector(new ProtocolBuilders())
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
      Record<?> record = record(source);
      if (record.getValueType() != valueType) {
        throw new IllegalArgumentException("a " + record.getValueType() + " record in an index of " + valueType);
      }
      return new RawRecord(sequence.longValue(), record);
    } catch (RuntimeException e) { // Jackson wraps what it cannot map in an IllegalArgumentException; a builder may throw
      return new RawRecord(sequence.longValue(), valueType, longOf(source.get("position")),
          longOf(source.get("timestamp")), null, new RawRecord.Unreadable(index, id, text(source), reason(e)));
    }
  }

  private Record<RecordValue> record(Map<String, Object> source) {
    ValueType type = ValueType.valueOf(required(source, "valueType"));
    ValueTypeMapping.Mapping<?, ?> mapping = ValueTypeMapping.get(type);
    if (mapping == null) {
      throw new IllegalArgumentException("no record value is known for the value type " + type);
    }
    RecordValue value = json.convertValue(source.get("value"), mapping.getValueClass());
    if (value == null) {
      throw new IllegalArgumentException("a record without a value");
    }
    Intent intent = intent(mapping.getIntentClass(), required(source, "intent"));
    return ImmutableRecord.<RecordValue>builder()
        .withPosition(number(source, "position"))
        .withSourceRecordPosition(number(source, "sourceRecordPosition"))
        .withKey(number(source, "key"))
        .withTimestamp(number(source, "timestamp"))
        .withPartitionId((int) number(source, "partitionId"))
        .withRecordType(RecordType.valueOf(required(source, "recordType")))
        .withRejectionType(source.get("rejectionType") instanceof String rejection
            ? RejectionType.valueOf(rejection) : null)
        .withRejectionReason(source.get("rejectionReason") instanceof String reason ? reason : null)
        .withBrokerVersion(source.get("brokerVersion") instanceof String version ? version : null)
        .withRecordVersion((int) Math.max(1, longOf(source.get("recordVersion"))))
        .withOperationReference(source.get("operationReference") instanceof Number reference
            ? reference.longValue() : -1)
        .withValueType(type)
        .withIntent(intent)
        .withValue(value)
        .build();
  }

  private static <I extends Enum<I>> Intent intent(Class<I> intents, String name) {
    return (Intent) Enum.valueOf(intents, name);
  }

  private static long number(Map<String, Object> source, String field) {
    if (!(source.get(field) instanceof Number number)) {
      throw new IllegalArgumentException("a record without a number as " + field + ", was " + source.get(field));
    }
    return number.longValue();
  }

  private static String required(Map<String, Object> source, String field) {
    if (!(source.get(field) instanceof String text)) {
      throw new IllegalArgumentException("a record without a " + field + ", was " + source.get(field));
    }
    return text;
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
