package dev.flowpipe.node.retention;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the store holds of given instances, read straight from its concrete indices (never through the aliases or the
 * routing under test): every document that names an instance, whatever index it sits in, so an orphan in an index
 * that should not exist is found too.
 */
final class StoreDocuments {

  private static final int MAX_HITS = 10_000;

  private final SearchStore store;
  private final String prefix;

  StoreDocuments(SearchStore store, String prefix) {
    this.store = store;
    this.prefix = prefix;
  }

  /** The concrete indices under the prefix (no aliases), refreshed. */
  List<String> indices() {
    List<String> names = new ArrayList<>();
    store.admin().request("indices", "GET", "/_cat/indices/" + prefix + "-*?format=json&h=index", null)
        .forEach(row -> names.add(row.path("index").asText()));
    names.sort(null);
    return names;
  }

  /** Per instance key, its documents (kind and id, with their source) in every index under the prefix. */
  Map<Long, Map<String, JsonNode>> of(List<Long> instanceKeys) {
    Map<Long, Map<String, JsonNode>> found = new TreeMap<>();
    instanceKeys.forEach(key -> found.put(key, new TreeMap<>()));
    List<String> indices = indices();
    if (indices.isEmpty() || instanceKeys.isEmpty()) {
      return found;
    }
    String all = String.join(",", indices);
    store.admin().request("refresh", "POST", "/" + all + "/_refresh", null);
    JsonNode answer = store.admin().request("documents of instances", "POST", "/" + all + "/_search", Map.of(
        "size", MAX_HITS, "track_total_hits", true,
        "query", Map.of("bool", Map.of("should", List.of(
            Map.of("terms", Map.of("processInstanceKey", instanceKeys)),
            Map.of("bool", Map.of("filter", List.of(
                Map.of("term", Map.of(ReadModelIndex.KIND_FIELD, ReadModelIndex.PROCESS_INSTANCE.entity())),
                Map.of("terms", Map.of("key", instanceKeys))))))))));
    if (answer.path("hits").path("total").path("value").asLong() > MAX_HITS) {
      throw new IllegalStateException("more documents than one search answers: " + answer.path("hits").path("total"));
    }
    for (JsonNode hit : answer.path("hits").path("hits")) {
      JsonNode source = hit.path("_source");
      String kind = source.path(ReadModelIndex.KIND_FIELD).asText("?");
      long instance = ReadModelIndex.PROCESS_INSTANCE.entity().equals(kind)
          ? source.path("key").asLong() : source.path("processInstanceKey").asLong();
      Map<String, JsonNode> documents = found.get(instance);
      if (documents != null) {
        documents.put(kind + "/" + hit.path("_id").asText() + " in " + hit.path("_index").asText(), source);
      }
    }
    return found;
  }

  /** Per instance key, how many documents it has, by kind. */
  Map<Long, Map<String, Integer>> countsByKind(List<Long> instanceKeys) {
    Map<Long, Map<String, Integer>> counts = new LinkedHashMap<>();
    of(instanceKeys).forEach((key, documents) -> {
      Map<String, Integer> byKind = new TreeMap<>();
      documents.keySet().forEach(name -> byKind.merge(name.substring(0, name.indexOf('/')), 1, Integer::sum));
      counts.put(key, byKind);
    });
    return counts;
  }
}
