package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.index.BatchOperationIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.query.SearchRequestParser;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The process-instance filter {@code batchOperationId}: the instances a batch operation touched are the instances its
 * items name (the batch index beside the read model). A condition on batch keys becomes the keys of those instances, as
 * Camunda matches an instance's list of batch operation ids: {@code $eq}, {@code $in}, {@code $like} and
 * {@code $exists: true} hold for an instance one such batch touched; {@code $neq}, {@code $notIn} and
 * {@code $exists: false} for one no such batch touched. At most {@link #MAX_INSTANCES} instances per condition (the
 * store's terms limit); beyond, a 400 says so.
 */
final class BatchInstances {

  static final int MAX_INSTANCES = 65_536;
  private static final String PART = "filter." + SearchRequestParser.BATCH_OPERATION;
  private static final String BATCH_KEY = "batchOperationKey";

  private final ReadModel readModel;
  private final Duration storeTimeout;

  BatchInstances(ReadModel readModel, Duration storeTimeout) {
    this.readModel = readModel;
    this.storeTimeout = storeTimeout;
  }

  /** The criteria on process instances for one {@code batchOperationId} condition: a value or operators. */
  List<Criterion> criteria(JsonNode condition) {
    List<Criterion> criteria = new ArrayList<>();
    if (condition.isTextual()) {
      criteria.add(touchedBy(new Criterion.Equals(BATCH_KEY, condition.asText())));
      return criteria;
    }
    if (!condition.isObject()) {
      throw new BadRequestException(PART, "expected a batch operation key or {$eq, $neq, $exists, $in, $notIn, $like},"
          + " was " + condition);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = condition.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      String part = PART + "." + entry.getKey();
      JsonNode operand = entry.getValue();
      switch (entry.getKey()) {
        case "$eq" -> criteria.add(touchedBy(new Criterion.Equals(BATCH_KEY, text(part, operand))));
        case "$neq" -> criteria.add(new Criterion.Not(touchedBy(new Criterion.Equals(BATCH_KEY, text(part, operand)))));
        case "$like" -> criteria.add(touchedBy(new Criterion.Like(BATCH_KEY, text(part, operand))));
        case "$in", "$notIn" -> {
          List<Object> keys = texts(part, operand);
          if (!keys.isEmpty()) { // an empty list constrains nothing, as Camunda's clients send it
            Criterion touched = touchedBy(new Criterion.OneOf(BATCH_KEY, keys));
            criteria.add(entry.getKey().equals("$in") ? touched : new Criterion.Not(touched));
          }
        }
        case "$exists" -> {
          if (!operand.isBoolean()) {
            throw new BadRequestException(part, "expected true or false, was " + operand);
          }
          Criterion touched = touchedBy(new Criterion.Exists(BATCH_KEY));
          criteria.add(operand.booleanValue() ? touched : new Criterion.Not(touched));
        }
        default -> throw new BadRequestException(part, "unknown operator; a batch operation key takes $eq, $neq,"
            + " $exists, $in, $notIn and $like");
      }
    }
    return criteria;
  }

  /** Instances named by the items that meet {@code onItems}. */
  private Criterion touchedBy(Criterion onItems) {
    String index = BatchOperationIndex.name(readModel.indexPrefix());
    Set<Object> instances = new LinkedHashSet<>();
    if (readModel.store().indexExists(index)) {
      List<SearchHits.Hit> items = AllHits.read(readModel.store(), index,
          List.of(new Criterion.Equals("kind", "item"), onItems),
          List.of(SortField.ascending(BATCH_KEY), SortField.ascending("itemKey")), List.of(), storeTimeout, MAX_INSTANCES);
      for (SearchHits.Hit hit : items) {
        Object key = hit.source().get("processInstanceKey");
        if (key != null) {
          instances.add(Long.parseLong(key.toString()));
        }
      }
      if (instances.size() > MAX_INSTANCES) {
        throw new BadRequestException(PART, "the batch operations it names touched more than " + MAX_INSTANCES
            + " instances; name fewer batches");
      }
    }
    return new Criterion.OneOf("key", List.copyOf(instances));
  }

  private static String text(String part, JsonNode operand) {
    if (!operand.isTextual()) {
      throw new BadRequestException(part, "expected a batch operation key (a string), was " + operand);
    }
    return operand.asText();
  }

  private static List<Object> texts(String part, JsonNode operand) {
    if (!operand.isArray()) {
      throw new BadRequestException(part, "expected an array of batch operation keys, was " + operand);
    }
    List<Object> keys = new ArrayList<>();
    for (int i = 0; i < operand.size(); i++) {
      keys.add(text(part + "[" + i + "]", operand.get(i)));
    }
    return keys;
  }
}
