package dev.flowpipe.schema.index;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.schema.store.SearchStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings an existing read model of this schema version up to this build's entities and fields, in place: what a new
 * entity or a new field adds is additive (new fields in the mapping, new filtered aliases), so no copy is needed. The
 * store itself refuses a changed field (a mapping conflict), which stops the start naming it. Covers the base index and
 * every period index of retention (ADR 0011): each period index gains the new entity's two aliases, its global name
 * (read) and the period's own name (the write index the exporter routes to).
 *
 * <p>An index holding none of the entities' names is left alone (it was not created as a read model; the schema
 * manager refuses it). Idempotent: a second run finds everything in place and changes nothing; several processes running it at once
 * send the same mapping and aliases (adding an alias that exists is no error).
 */
final class SchemaAdditions {

  private static final Logger LOG = LoggerFactory.getLogger(SchemaAdditions.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final SearchStore store;
  private final String prefix;

  SchemaAdditions(SearchStore store, String prefix) {
    this.store = store;
    this.prefix = prefix;
  }

  /** Adds the missing fields and entity aliases to the base index and to every period index. */
  void apply(IndexLayout layout) {
    String base = ReadModelIndex.sharedIndexName(prefix);
    String periods = ReadModelIndex.sharedIndexName(prefix + "-p*");
    JsonNode mappings;
    try {
      mappings = JSON.readTree(ReadModelIndex.sharedIndexBody(prefix, layout, false)).path("mappings");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // the period indices of this prefix only: "<prefix>-p*" would also match another prefix beginning with "p"
    Pattern ours = Pattern.compile(Pattern.quote(prefix) + "-p\\d{14}" + Pattern.quote(base.substring(prefix.length())));
    JsonNode aliases = store.admin().request("aliases of " + base, "GET",
        "/" + base + "," + periods + "/_alias?ignore_unavailable=true&allow_no_indices=true", null);
    List<String> indices = new ArrayList<>();
    aliases.fieldNames().forEachRemaining(name -> {
      if (name.equals(base) || ours.matcher(name).matches()) {
        indices.add(name);
      }
    });
    if (indices.isEmpty()) {
      return;
    }
    ObjectNode mapping = JSON.createObjectNode();
    mapping.set("properties", mappings.path("properties"));
    store.admin().request("add this build's fields to " + indices, "PUT", "/" + String.join(",", indices) + "/_mapping",
        mapping);

    ObjectNode actions = JSON.createObjectNode();
    ArrayNode list = actions.putArray("actions");
    for (String index : indices) {
      JsonNode held = aliases.path(index).path("aliases");
      if (ReadModelIndex.entities().stream().noneMatch(entity -> held.has(entity.indexName(prefix)))) {
        continue; // no read model of an earlier build (none of its names): not ours to complete, SchemaManager refuses it
      }
      boolean isBase = index.equals(base);
      // <prefix>-p<label>-read-model-v2 -> <prefix>-p<label>: the prefix of the period's own entity names
      String periodPrefix = index.substring(0, index.length() - (base.length() - prefix.length()));
      for (ReadModelIndex entity : ReadModelIndex.entities()) {
        String global = entity.indexName(prefix);
        if (!held.has(global)) {
          list.addObject().set("add", alias(index, global, entity, isBase));
        }
        String own = entity.indexName(periodPrefix);
        if (!isBase && !held.has(own)) {
          list.addObject().set("add", alias(index, own, entity, true));
        }
      }
    }
    if (!list.isEmpty()) {
      store.updateAliases(actions.toString());
      LOG.info("read model brought up to this build's entities: {} alias(es) added", list.size());
    }
  }

  private static ObjectNode alias(String index, String name, ReadModelIndex entity, boolean writeIndex) {
    ObjectNode add = JSON.createObjectNode();
    add.put("index", index);
    add.put("alias", name);
    add.putObject("filter").putObject("term").put(ReadModelIndex.KIND_FIELD, entity.entity());
    add.put("is_write_index", writeIndex);
    return add;
  }
}
