package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.webapp.query.Entity;
import dev.flowpipe.webapp.query.SearchRequestParser;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A decision definition's DRD name and version (the 8.9 {@code decisionRequirementsName} and
 * {@code decisionRequirementsVersion}), which the read model keeps on the DRD only: answers read them from the DRDs of
 * their items (one search per page of answers), filters become a search of the DRDs they hold for. A read model holds
 * few DRDs (one per deployed DMN version). Sorting on them is not offered.
 */
final class RequirementsOfDecisions {

  private final ReadModel readModel;
  private final SearchRequestParser parser;
  private final Duration storeTimeout;

  RequirementsOfDecisions(ReadModel readModel, SearchRequestParser parser, Duration storeTimeout) {
    this.readModel = readModel;
    this.parser = parser;
    this.storeTimeout = storeTimeout;
  }

  /** The keys of the DRDs that a DRD filter (API names of the DRD entity) holds for; deleted ones too. */
  List<Object> keys(JsonNode drdFilter) {
    ObjectNode request = JsonNodeFactory.instance.objectNode();
    request.set("filter", drdFilter);
    List<Criterion> criteria;
    try {
      criteria = parser.parse(Entity.DECISION_REQUIREMENTS, request).criteria();
    } catch (dev.flowpipe.webapp.query.BadRequestException e) {
      // the DRD's field names in the message are the decision definition's in the request
      String part = e.part().replace("filter.version", "filter.decisionRequirementsVersion");
      throw new dev.flowpipe.webapp.query.BadRequestException(part, e.getMessage().substring(e.part().length() + 2));
    }
    List<Object> keys = new ArrayList<>();
    for (SearchHits.Hit hit : all(criteria)) {
      keys.add(hit.source().get("key"));
    }
    return keys;
  }

  /** Puts each decision definition item's DRD name and version in it (null where the DRD is not in the read model). */
  void addNames(List<Map<String, Object>> items) {
    Set<Object> keys = new LinkedHashSet<>();
    for (Map<String, Object> item : items) {
      Object key = item.get("decisionRequirementsKey");
      if (key != null) {
        keys.add(Long.parseLong(key.toString()));
      }
    }
    Map<String, Map<String, Object>> byKey = new HashMap<>();
    if (!keys.isEmpty()) {
      for (SearchHits.Hit hit : all(List.of(new Criterion.OneOf("key", List.copyOf(keys))))) {
        byKey.put(String.valueOf(hit.source().get("key")), hit.source());
      }
    }
    for (Map<String, Object> item : items) {
      Map<String, Object> requirements = byKey.getOrDefault(String.valueOf(item.get("decisionRequirementsKey")), Map.of());
      item.put("decisionRequirementsName", requirements.get("name"));
      item.put("decisionRequirementsVersion", requirements.get("version"));
    }
  }

  private List<SearchHits.Hit> all(List<Criterion> criteria) {
    return AllHits.read(readModel.store(), readModel.index(Entity.DECISION_REQUIREMENTS.index()), criteria,
        List.of(SortField.ascending("key")), List.of("dmnXml"), storeTimeout, Integer.MAX_VALUE);
  }
}
