package dev.flowpipe.schema.index;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The read model's entities, each addressed by its own index name ({@code flowpipe-variable-v2}).
 *
 * <p>The entities (all but the dead letters) live in one physical index, {@code <prefix>-read-model-v2}; each entity's
 * name is a filtered alias onto it ({@code kind = <entity>}), so a search, count or get on the entity's name sees only
 * that entity. Why one index: a bulk asked to refresh refreshes every shard it wrote to, and each refresh writes and
 * opens a new segment. With one index per entity a typical bulk touched 4-5 shards; with one it touches one. Measured
 * on the embedded store (75 documents per bulk, 10 bulks/s, refresh on each): about a third of the store CPU and half
 * the bulk time (benchmarks/README.md, "one index for the read model").
 *
 * <p>The adapters keep this transparent: a document written to an entity's name gets {@code kind} added and its id
 * prefixed with the entity ({@code variable:123}), so ids of different entities never meet; both are removed again
 * on the way back. Callers only ever see entity names and their own ids.
 */
public enum ReadModelIndex {
  PROCESS_DEFINITION("process-definition"),
  PROCESS_INSTANCE("process-instance"),
  FLOW_NODE_INSTANCE("flow-node-instance"),
  VARIABLE("variable"),
  INCIDENT("incident"),
  JOB("job"),
  /** A sequence flow an instance took (at least once): one document per instance and flow. */
  SEQUENCE_FLOW("sequence-flow"),
  /** A process instance's subscription to a message (a catch event, receive task or boundary event waiting). */
  MESSAGE_SUBSCRIPTION("message-subscription"),
  /**
   * A message correlated to a subscription: one document per subscription and message (a non-interrupting one
   * correlates many). Not named "...-message-subscription": entities are told apart by the ends of their names.
   */
  MESSAGE_CORRELATION("message-correlation"),
  /** A deployed DMN decision (one version): not routed by retention, like process definitions. */
  DECISION_DEFINITION("decision-definition"),
  /** A deployed DRD (decision requirements graph, one version) with its DMN XML: not routed by retention. */
  DECISION_REQUIREMENTS("decision-requirements"),
  /**
   * One decision evaluated in one evaluation ({@code <evaluationKey>-<n>}, n from 1, as Camunda's): a business rule
   * task's evaluation gives one per decision of the DRD it evaluated.
   */
  DECISION_INSTANCE("decision-instance"),
  /**
   * An incident alert (issue 36): one per incident, written by the writer with the incident in the same bulk and
   * versioned by the incident's position, so a replay never re-arms it (ADR 0021). Routed by retention with its
   * instance.
   */
  ALERT("alert"),
  /**
   * One alert's delivery to one configured webhook endpoint ({@code <incidentKey>-<endpoint>}): claimed, retried and
   * marked by the alert dispatcher with compare-and-set writes (ADR 0021); in its alert's period.
   */
  ALERT_DELIVERY("alert-delivery"),
  /** Documents the store refused for good (mapping conflict, too large), kept with the reason; an index of its own. */
  DEAD_LETTER("dead-letter"),
  /**
   * Per partition, the log position up to which the exporter has made every record durable (one document per
   * partition, {@code partition-<id>}, versioned by that position); read-your-writes by position waits for it.
   */
  EXPORT_POSITION("export-position"),
  /**
   * Per partition, which broker log the read model comes from (one document per partition, {@code partition-<id>}: the
   * log's id and the first record the exporter wrote from it): a log younger than the store is refused, not mixed in.
   */
  LOG_IDENTITY("log-identity");

  /**
   * Bump together with the {@code _meta.schemaVersion} of read-model.json, dead-letter.json, export-position.json and
   * log-identity.json
   * when a mapping changes.
   */
  public static final int SCHEMA_VERSION = 2;

  /** The field that tells the entities in the shared index apart. */
  public static final String KIND_FIELD = "kind";

  private static final String SHARED = "read-model";
  private static final String VERSION_SUFFIX = "-v" + SCHEMA_VERSION;
  private static final String SHARED_SUFFIX = "-" + SHARED + VERSION_SUFFIX;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String entity;
  // "-variable-v2": what an index name of this entity ends with; built once, since every written document is checked
  private final String nameSuffix;

  ReadModelIndex(String entity) {
    this.entity = entity;
    this.nameSuffix = "-" + entity + VERSION_SUFFIX;
  }

  public String entity() {
    return entity;
  }

  /**
   * Whether the entity lives in the shared read-model index (every one but the dead letters, export positions and log
   * identities).
   */
  public boolean shared() {
    return this != DEAD_LETTER && this != EXPORT_POSITION && this != LOG_IDENTITY;
  }

  /** The read model's entities: those of the shared index (what searches and read-model comparisons cover). */
  public static List<ReadModelIndex> entities() {
    return java.util.Arrays.stream(values()).filter(ReadModelIndex::shared).toList();
  }

  /**
   * The entities the writer derives from the log's records: every entity but the alert deliveries, which the web
   * app's dispatcher writes. Two read models built from the same log are compared on these.
   */
  public static List<ReadModelIndex> fromRecords() {
    return entities().stream().filter(index -> index != ALERT_DELIVERY).toList();
  }

  /** The id of a partition's document in {@link #LOG_IDENTITY}. */
  public static String logIdentityId(int partitionId) {
    return "partition-" + partitionId;
  }

  /** The id of a partition's document in {@link #EXPORT_POSITION}. */
  public static String exportPositionId(int partitionId) {
    return "partition-" + partitionId;
  }

  /** The name callers use: e.g. {@code flowpipe-process-instance-v2} for prefix {@code flowpipe}. */
  public String indexName(String prefix) {
    return prefix + nameSuffix;
  }

  /** The physical index holding this entity: the shared one, or the dead-letter index itself. */
  public String physicalIndexName(String prefix) {
    return shared() ? sharedIndexName(prefix) : indexName(prefix);
  }

  /** e.g. {@code flowpipe-read-model-v2}. */
  public static String sharedIndexName(String prefix) {
    return prefix + SHARED_SUFFIX;
  }

  /** The shared entity an index name stands for, if it is one ({@code x-variable-v2} -> VARIABLE). */
  public static Optional<ReadModelIndex> sharedEntityOf(String indexName) {
    if (indexName != null) {
      for (ReadModelIndex index : values()) {
        if (index.shared() && indexName.endsWith(index.nameSuffix) && indexName.length() > index.nameSuffix.length()) {
          return Optional.of(index);
        }
      }
    }
    return Optional.empty();
  }

  /** The id under which the store keeps a document of this entity: unique across the entities of the shared index. */
  public String storedId(String id) {
    return shared() ? entity + ":" + id : id;
  }

  /** The stored id of a document written to {@code index} under the caller's {@code id}. */
  public static String storedId(String index, String id) {
    return sharedEntityOf(index).map(entity -> entity.storedId(id)).orElse(id);
  }

  /** The stored ids of documents read from {@code index} by the caller's {@code ids}. */
  public static List<String> storedIds(String index, List<String> ids) {
    return sharedEntityOf(index).map(entity -> ids.stream().map(entity::storedId).toList()).orElse(ids);
  }

  /** The document as stored when written to {@code index}. */
  public static Map<String, Object> storedSource(String index, Map<String, Object> document) {
    return sharedEntityOf(index).map(entity -> entity.storedSource(document)).orElse(document);
  }

  /**
   * The caller's id back from a stored one read from {@code index} (an entity name, or the shared index itself, as
   * search hits name it): {@code variable:123} -> {@code 123}. Ids from other indices pass unchanged.
   */
  public static String callerId(String index, String storedId) {
    if (!holdsSharedEntities(index)) {
      return storedId;
    }
    int colon = storedId.indexOf(':');
    return colon > 0 && sharedEntityNamed(storedId.substring(0, colon)) != null
        ? storedId.substring(colon + 1)
        : storedId;
  }

  /** The document as stored: with {@code kind} set for a shared entity. */
  public Map<String, Object> storedSource(Map<String, Object> document) {
    if (!shared()) {
      return document;
    }
    Map<String, Object> copy = new LinkedHashMap<>(document);
    copy.put(KIND_FIELD, entity);
    return copy;
  }

  /** A stored document read from {@code index} as the caller wrote it: without {@code kind}. Null stays null. */
  public static Map<String, Object> callerSource(String index, Map<String, Object> stored) {
    if (stored == null || !stored.containsKey(KIND_FIELD) || !holdsSharedEntities(index)) {
      return stored;
    }
    Map<String, Object> copy = new LinkedHashMap<>(stored);
    copy.remove(KIND_FIELD);
    return copy;
  }

  /**
   * The entity name a search hit from the shared index belongs to ({@code x-read-model-v2} holding a variable ->
   * {@code x-variable-v2}), so hits name the index the caller searched. Other indices pass unchanged.
   */
  public static String callerIndex(String index, Map<String, Object> stored) {
    if (index == null || !index.endsWith(SHARED_SUFFIX) || stored == null
        || !(stored.get(KIND_FIELD) instanceof String kind) || sharedEntityNamed(kind) == null) {
      return index;
    }
    return index.substring(0, index.length() - SHARED_SUFFIX.length()) + sharedEntityNamed(kind).nameSuffix;
  }

  private static boolean holdsSharedEntities(String index) {
    return index != null && (index.endsWith(SHARED_SUFFIX) || sharedEntityOf(index).isPresent());
  }

  /** The shared entity of that name, or null. */
  private static ReadModelIndex sharedEntityNamed(String entity) {
    for (ReadModelIndex index : values()) {
      if (index.shared() && index.entity.equals(entity)) {
        return index;
      }
    }
    return null;
  }

  /** The index body (settings and mappings) with the refresh interval filled in: the indices of their own only. */
  public String body(String refreshInterval) {
    return body(IndexLayout.singleNode(refreshInterval));
  }

  /** The index body with the layout's settings: the indices of their own only. */
  public String body(IndexLayout layout) {
    if (shared()) {
      throw new IllegalStateException(entity + " lives in the shared read-model index: use sharedIndexBody");
    }
    try {
      return JSON.writeValueAsString(withLayout(resource(entity), layout));
    } catch (java.io.IOException e) {
      throw new IllegalStateException("index body of " + entity + " is not JSON", e);
    }
  }

  /** A resource body with the layout's refresh interval, shards and replicas in its index settings. */
  private static ObjectNode withLayout(String resource, IndexLayout layout) throws java.io.IOException {
    ObjectNode body = (ObjectNode) JSON.readTree(resource.replace("${refreshInterval}", layout.refreshInterval()));
    ObjectNode index = (ObjectNode) body.path("settings").path("index");
    index.put("number_of_shards", layout.shards());
    index.put("number_of_replicas", layout.replicas());
    return body;
  }

  /**
   * The shared index's body: its settings, the union of every shared entity's fields plus {@code kind}, and one
   * filtered alias per entity (the entity's name), so the index and all its names appear in one atomic step.
   *
   * @throws IllegalStateException when two entities declare the same field differently
   */
  public static String sharedIndexBody(String prefix, String refreshInterval) {
    return sharedIndexBody(prefix, IndexLayout.singleNode(refreshInterval));
  }

  /** As {@link #sharedIndexBody(String, String)}, with the layout's settings. */
  public static String sharedIndexBody(String prefix, IndexLayout layout) {
    return sharedIndexBody(prefix, layout, true);
  }

  /**
   * As {@link #sharedIndexBody(String, IndexLayout)}; without the entities' aliases when a migration fills the index
   * first and adds them afterwards ({@link #aliasActions}), so that no reader sees a half-copied read model.
   */
  public static String sharedIndexBody(String prefix, IndexLayout layout, boolean withAliases) {
    try {
      ObjectNode body = withLayout(resource(SHARED), layout);
      ObjectNode properties = (ObjectNode) body.path("mappings").path("properties");
      Map<String, String> declaredBy = new LinkedHashMap<>();
      properties.fieldNames().forEachRemaining(field -> declaredBy.put(field, SHARED));
      for (ReadModelIndex index : entities()) {
        addFields(properties, declaredBy, index.entity, JSON.readTree(resource(index.entity)).path("properties"));
      }
      if (withAliases) {
        ObjectNode aliases = body.putObject("aliases");
        for (ReadModelIndex index : entities()) {
          aliases.set(index.indexName(prefix), index.aliasDefinition());
        }
      }
      return JSON.writeValueAsString(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The alias request that adds every entity's alias onto the shared index in one atomic step. */
  public static String aliasActions(String prefix) {
    ObjectNode body = JSON.createObjectNode();
    var actions = body.putArray("actions");
    for (ReadModelIndex index : entities()) {
      ObjectNode add = index.aliasDefinition();
      add.put("index", sharedIndexName(prefix));
      add.put("alias", index.indexName(prefix));
      actions.addObject().set("add", add);
    }
    return body.toString();
  }

  /** The entity's alias onto the shared index: filtered to its kind, and where writes to its name go. */
  private ObjectNode aliasDefinition() {
    ObjectNode alias = JSON.createObjectNode();
    alias.putObject("filter").putObject("term").put(KIND_FIELD, entity);
    alias.put("is_write_index", true);
    return alias;
  }

  /**
   * Adds {@code entity}'s field mappings to the shared {@code properties}; a field already there (recorded in
   * {@code declaredBy} with the entity that declared it) must be mapped the same.
   */
  static void addFields(ObjectNode properties, Map<String, String> declaredBy, String entity, JsonNode fields) {
    for (Iterator<Map.Entry<String, JsonNode>> it = fields.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      JsonNode existing = properties.get(field.getKey());
      if (existing == null) {
        properties.set(field.getKey(), field.getValue());
        declaredBy.put(field.getKey(), entity);
      } else if (!existing.equals(field.getValue())) {
        throw new IllegalStateException(
            "field '" + field.getKey() + "' is " + field.getValue() + " in " + entity + " but " + existing
                + " in " + declaredBy.get(field.getKey()) + ": entities sharing the read-model index must agree");
      }
    }
  }

  private static String resource(String name) {
    String resource = "/flowpipe/schema/" + name + ".json";
    try (InputStream in = ReadModelIndex.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("schema resource missing: " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
