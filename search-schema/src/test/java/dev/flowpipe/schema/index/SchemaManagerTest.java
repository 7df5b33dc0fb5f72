package dev.flowpipe.schema.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SharedOpenSearch.class)
class SchemaManagerTest {

  private final SearchStore store;

  SchemaManagerTest(SearchStore store) {
    this.store = store;
  }

  @Test
  void createsEveryReadModelIndexOnceAndAcceptsThemOnTheNextStart() {
    String prefix = SharedOpenSearch.uniquePrefix();

    new SchemaManager(store, prefix, "1s").ensureSchema();
    new SchemaManager(store, prefix, "1s").ensureSchema();

    for (ReadModelIndex index : ReadModelIndex.values()) {
      assertThat(store.indexExists(index.indexName(prefix))).as(index.indexName(prefix)).isTrue();
      assertThat(store.mappingMeta(index.indexName(prefix))).containsEntry("schemaVersion", ReadModelIndex.SCHEMA_VERSION);
    }
  }

  @Test
  void createsTheIndicesWithTheLayoutsShardsAndReplicas(dev.flowpipe.embeddedstore.EmbeddedSearchStore node)
      throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();

    new SchemaManager(store, prefix, new IndexLayout("1s", 2, 1)).ensureSchema();

    for (String index : java.util.List.of(ReadModelIndex.sharedIndexName(prefix),
        ReadModelIndex.DEAD_LETTER.indexName(prefix))) {
      String answer = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
              java.net.URI.create(node.url() + "/" + index + "/_settings")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()).body();
      JsonNode settings = new ObjectMapper().readTree(answer).path(index).path("settings").path("index");
      assertThat(settings.path("number_of_shards").asText()).as(index).isEqualTo("2");
      assertThat(settings.path("number_of_replicas").asText()).as(index).isEqualTo("1");
      assertThat(settings.path("refresh_interval").asText()).as(index).isEqualTo("1s");
    }
  }

  /**
   * Footprint (issue 32): the shared index and every period index keep their stored fields with best compression (on
   * OpenSearch; Elasticsearch's is zstd, see {@code StoreProduct.indexBody}) and their documents sorted by entity and
   * instance, so that an instance's documents of one entity lie together.
   */
  @Test
  void createsTheSharedIndexAndItsPeriodsCompressedAndSortedByEntityAndInstance(
      dev.flowpipe.embeddedstore.EmbeddedSearchStore node) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    new SchemaManager(store, prefix, "1s").ensureSchema();
    dev.flowpipe.schema.retention.Period period = new dev.flowpipe.schema.retention.Period(
        java.time.Instant.parse("2026-01-01T00:00:00Z"), java.time.Duration.ofDays(1));
    new dev.flowpipe.schema.retention.PeriodIndices(store, prefix, IndexLayout.singleNode("1s")).ensure(period);

    for (String index : java.util.List.of(ReadModelIndex.sharedIndexName(prefix), period.indexName(prefix))) {
      JsonNode settings = indexSettings(node, index);
      assertThat(settings.path("codec").asText()).as(index).isEqualTo("best_compression");
      assertThat(settings.path("sort").path("field").toString()).as(index)
          .isEqualTo("[\"kind\",\"processInstanceKey\"]");
    }
  }

  /**
   * Codec and index sort are fixed when an index is created: a read model created before them (the default codec,
   * unsorted) is accepted as it is at the next start, its documents read and new ones written.
   */
  @Test
  void anExistingReadModelCreatedWithoutTheCompressionAndSortIsAcceptedAsItIs(
      dev.flowpipe.embeddedstore.EmbeddedSearchStore node) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    ObjectMapper json = new ObjectMapper();
    var older = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(
        ReadModelIndex.sharedIndexBody(prefix, "1s"));
    ((com.fasterxml.jackson.databind.node.ObjectNode) older.path("settings").path("index"))
        .remove(java.util.List.of("codec", "sort.field", "sort.order"));
    store.createIndex(ReadModelIndex.sharedIndexName(prefix), older.toString());
    store.put(ReadModelIndex.VARIABLE.indexName(prefix), "1", java.util.Map.of("key", 1, "name", "x"));

    new SchemaManager(store, prefix, "1s").ensureSchema();

    assertThat(indexSettings(node, ReadModelIndex.sharedIndexName(prefix)).has("sort")).isFalse();
    assertThat(store.get(ReadModelIndex.VARIABLE.indexName(prefix), "1")).get().extracting(d -> d.get("name"))
        .isEqualTo("x");
    var written = store.bulk(java.util.List.of(new DocumentWrite(ReadModelIndex.VARIABLE.indexName(prefix), "2", 1,
        java.util.Map.of("key", 2, "name", "y", "processInstanceKey", 3))), true);
    assertThat(written.failures()).isEmpty();
    assertThat(store.findByField(ReadModelIndex.VARIABLE.indexName(prefix), "name", "y", 10)).hasSize(1);
  }

  private static JsonNode indexSettings(dev.flowpipe.embeddedstore.EmbeddedSearchStore node, String index)
      throws Exception {
    String answer = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(node.url() + "/" + index + "/_settings")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    return new ObjectMapper().readTree(answer).path(index).path("settings").path("index");
  }

  /**
   * A read model of this schema version written by an earlier build (without the entities and fields added since, a
   * period index of retention among it) gains them in place at the next start: its documents stay, new documents of the
   * new entities are written and read through their names, in the base and in the period.
   */
  @Test
  void anExistingReadModelOfThisVersionGainsTheEntitiesAndFieldsAddedSinceInPlace() throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    String period = prefix + "-p20260101000000";
    java.util.List<ReadModelIndex> added = java.util.List.of(ReadModelIndex.SEQUENCE_FLOW,
        ReadModelIndex.MESSAGE_SUBSCRIPTION, ReadModelIndex.MESSAGE_CORRELATION);
    store.createIndex(ReadModelIndex.sharedIndexName(prefix), earlierBody(prefix, prefix, added, true));
    for (ReadModelIndex own : ReadModelIndex.values()) {
      if (!own.shared()) {
        store.createIndex(own.indexName(prefix), own.body("1s"));
      }
    }
    store.createIndex(ReadModelIndex.sharedIndexName(period), earlierBody(prefix, period, added, false));
    store.put(ReadModelIndex.VARIABLE.indexName(prefix), "1", java.util.Map.of("key", 1, "name", "x"));

    new SchemaManager(store, prefix, "1s").ensureSchema();
    new SchemaManager(store, prefix, "1s").ensureSchema();

    var written = store.bulk(java.util.List.of(
        new DocumentWrite(ReadModelIndex.SEQUENCE_FLOW.indexName(prefix), "1_f", 1,
            java.util.Map.of("sequenceFlowId", "1_f", "processInstanceKey", 1)),
        new DocumentWrite(ReadModelIndex.MESSAGE_SUBSCRIPTION.indexName(period), "2", 1,
            java.util.Map.of("key", 2, "messageName", "m", "processInstanceKey", 3)),
        new DocumentWrite(ReadModelIndex.INCIDENT.indexName(period), "4", 1,
            java.util.Map.of("key", 4, "errorMessageHash", 7))), true);
    assertThat(written.failures()).isEmpty();
    assertThat(store.get(ReadModelIndex.VARIABLE.indexName(prefix), "1")).get().extracting(d -> d.get("name"))
        .isEqualTo("x");
    assertThat(store.get(ReadModelIndex.SEQUENCE_FLOW.indexName(prefix), "1_f")).isPresent();
    assertThat(store.findByField(ReadModelIndex.MESSAGE_SUBSCRIPTION.indexName(prefix), "messageName", "m", 10))
        .as("a period's subscription under the entity's global name").hasSize(1);
    assertThat(store.findByField(ReadModelIndex.INCIDENT.indexName(prefix), "errorMessageHash", 7, 10)).hasSize(1);
  }

  /** The shared index's body as a build without {@code added} (and without errorMessageHash) created it. */
  private static String earlierBody(String prefix, String indexPrefix, java.util.List<ReadModelIndex> added,
      boolean base) throws Exception {
    ObjectMapper json = new ObjectMapper();
    var body = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(
        ReadModelIndex.sharedIndexBody(prefix, "1s"));
    var properties = (com.fasterxml.jackson.databind.node.ObjectNode) body.path("mappings").path("properties");
    properties.remove(java.util.List.of("sequenceFlowId", "messageName", "correlationKey", "lastUpdatedDate",
        "subscriptionKey", "messageKey", "correlationTime", "errorMessageHash"));
    var aliases = json.createObjectNode();
    for (ReadModelIndex entity : ReadModelIndex.entities()) {
      if (added.contains(entity)) {
        continue;
      }
      var filter = json.createObjectNode();
      filter.putObject("filter").putObject("term").put(ReadModelIndex.KIND_FIELD, entity.entity());
      aliases.set(entity.indexName(prefix), filter.deepCopy().put("is_write_index", base));
      if (!base) {
        aliases.set(entity.indexName(indexPrefix), filter.deepCopy().put("is_write_index", true));
      }
    }
    body.set("aliases", aliases);
    return json.writeValueAsString(body);
  }

  @Test
  void anExistingReadModelOfThisVersionGainsTheFieldsAddedSinceAtTheNextStart(
      dev.flowpipe.embeddedstore.EmbeddedSearchStore node) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    // the read model as a build before the names were added created it: the same version, fewer fields
    ObjectMapper json = new ObjectMapper();
    com.fasterxml.jackson.databind.node.ObjectNode older =
        (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(ReadModelIndex.sharedIndexBody(prefix, "1s"));
    com.fasterxml.jackson.databind.node.ObjectNode properties =
        (com.fasterxml.jackson.databind.node.ObjectNode) older.path("mappings").path("properties");
    properties.remove(java.util.List.of("elementName", "processDefinitionName", "rootProcessInstanceKey"));
    properties.putObject("errorMessage").put("type", "text");
    store.createIndex(ReadModelIndex.sharedIndexName(prefix), older.toString());
    String period = prefix + "-p20260101000000-read-model-v2";
    older.remove("aliases");
    store.createIndex(period, older.toString());

    new SchemaManager(store, prefix, "1s").ensureSchema();

    for (String index : java.util.List.of(ReadModelIndex.sharedIndexName(prefix), period)) {
      JsonNode mapped = json.readTree(java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
              java.net.URI.create(node.url() + "/" + index + "/_mapping")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()).body()).path(index).path("mappings").path("properties");
      assertThat(mapped.path("elementName").path("type").asText()).as(index).isEqualTo("keyword");
      assertThat(mapped.path("rootProcessInstanceKey").path("type").asText()).as(index).isEqualTo("long");
      assertThat(mapped.path("errorMessage").path("fields").path("keyword").path("type").asText()).as(index)
          .isEqualTo("keyword");
    }
    // a document with the new fields is accepted (the mapping is strict) and found by them
    String elements = ReadModelIndex.FLOW_NODE_INSTANCE.indexName(prefix);
    var outcome = store.bulk(java.util.List.of(new dev.flowpipe.schema.store.DocumentWrite(elements, "7", 1,
        java.util.Map.of("key", 7, "elementId", "ship", "elementName", "Ship it", "rootProcessInstanceKey", 5))), true);
    assertThat(outcome.failures()).isEmpty();
    assertThat(store.findByField(elements, "elementName", "Ship it", 10)).hasSize(1);
  }

  @Test
  void refusesAnExistingIndexOfAnotherSchemaVersionNamingIt() {
    String prefix = SharedOpenSearch.uniquePrefix();
    String clash = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    store.createIndex(clash, "{\"mappings\": {\"_meta\": {\"schemaVersion\": 0}}}");

    assertThatThrownBy(() -> new SchemaManager(store, prefix, "1s").ensureSchema())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(clash)
        .hasMessageContaining("schemaVersion 0");
  }

  @Test
  void putsEveryEntityButTheDeadLettersInOneIndexUnderItsOwnName() {
    String prefix = SharedOpenSearch.uniquePrefix();

    new SchemaManager(store, prefix, "1s").ensureSchema();

    assertThat(store.indexExists(ReadModelIndex.sharedIndexName(prefix))).isTrue();
    for (ReadModelIndex index : ReadModelIndex.values()) {
      assertThat(index.physicalIndexName(prefix))
          .isEqualTo(index.shared() ? ReadModelIndex.sharedIndexName(prefix) : index.indexName(prefix));
    }
  }

  @Test
  void theSharedMappingIsTheUnionOfTheEntitiesFieldsAndTheirNamesAreFilteredAliases() throws Exception {
    JsonNode body = new ObjectMapper().readTree(ReadModelIndex.sharedIndexBody("p", "1s"));

    JsonNode properties = body.path("mappings").path("properties");
    assertThat(properties.has("kind")).isTrue();
    assertThat(properties.has("bpmnXml")).as("process definition").isTrue();
    assertThat(properties.has("incidentKeys")).as("process instance").isTrue();
    assertThat(properties.has("fullValue")).as("variable").isTrue();
    assertThat(properties.has("worker")).as("job").isTrue();
    assertThat(properties.has("errorType")).as("incident").isTrue();
    assertThat(body.path("aliases").path("p-variable-v" + ReadModelIndex.SCHEMA_VERSION).path("filter").toString())
        .isEqualTo("{\"term\":{\"kind\":\"variable\"}}");
    assertThat(body.path("aliases").has(ReadModelIndex.DEAD_LETTER.indexName("p"))).isFalse();
    assertThat(body.path("settings").path("index").path("refresh_interval").asText()).isEqualTo("1s");
  }

  @Test
  void refusesASharedIndexWhoseEntityAliasesAreMissingNamingTheAlias() {
    String prefix = SharedOpenSearch.uniquePrefix();
    String shared = ReadModelIndex.sharedIndexName(prefix);
    store.createIndex(
        shared, "{\"mappings\": {\"_meta\": {\"schemaVersion\": " + ReadModelIndex.SCHEMA_VERSION + "}}}");

    assertThatThrownBy(() -> new SchemaManager(store, prefix, "1s").ensureSchema())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(ReadModelIndex.PROCESS_DEFINITION.indexName(prefix))
        .hasMessageContaining("missing");
  }

  @Test
  void tellsTheEntityOfAnIndexName() {
    assertThat(ReadModelIndex.sharedEntityOf(ReadModelIndex.VARIABLE.indexName("a-b")))
        .hasValue(ReadModelIndex.VARIABLE);
    assertThat(ReadModelIndex.sharedEntityOf(ReadModelIndex.FLOW_NODE_INSTANCE.indexName("x")))
        .hasValue(ReadModelIndex.FLOW_NODE_INSTANCE);
    assertThat(ReadModelIndex.sharedEntityOf(ReadModelIndex.DEAD_LETTER.indexName("x"))).isEmpty();
    assertThat(ReadModelIndex.sharedEntityOf("x-variable-v1")).as("another schema version").isEmpty();
    assertThat(ReadModelIndex.sharedEntityOf("variable-v" + ReadModelIndex.SCHEMA_VERSION)).isEmpty();
    assertThat(ReadModelIndex.storedId("orders", "1")).isEqualTo("1");
    assertThat(ReadModelIndex.storedId(ReadModelIndex.JOB.indexName("x"), "1")).isEqualTo("job:1");
    assertThat(ReadModelIndex.callerId(ReadModelIndex.sharedIndexName("x"), "job:1")).isEqualTo("1");
    assertThat(ReadModelIndex.callerId("orders", "job:1")).as("not a read-model index").isEqualTo("job:1");
  }

  @Test
  void rejectsABadPrefixOrRefreshIntervalNamingTheValue() {
    assertThatThrownBy(() -> new SchemaManager(store, "Upper Case", "1s"))
        .hasMessageContaining("'Upper Case'");
    assertThatThrownBy(() -> new SchemaManager(store, "ok", "soon")).hasMessageContaining("soon");
  }
}
