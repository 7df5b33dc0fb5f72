package dev.flowpipe.schema.index;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.store.SearchStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the read model's indices at start-up if they are missing (see {@link ReadModelIndex} for the layout),
 * migrates a read model of the previous schema version in place ({@link SchemaMigration}), and refuses to start on an
 * existing index of any other schema version.
 */
public final class SchemaManager {

  private static final Logger LOG = LoggerFactory.getLogger(SchemaManager.class);
  private static final Pattern PREFIX = Pattern.compile("[a-z0-9][a-z0-9_.-]{0,99}");

  private final SearchStore store;
  private final String prefix;
  private final IndexLayout layout;
  private final SchemaMigration.Settings migration;
  private final MigrationProgress progress;

  /**
   * @param prefix index-name prefix: lowercase letters, digits, '-', '_', '.'
   * @param refreshInterval the indices' refresh interval in the store's notation ("100ms", "1s", "-1")
   */
  public SchemaManager(SearchStore store, String prefix, String refreshInterval) {
    this(store, prefix, IndexLayout.singleNode(refreshInterval));
  }

  /** @param layout refresh interval, shards and replicas of the indices this creates */
  public SchemaManager(SearchStore store, String prefix, IndexLayout layout) {
    this(store, prefix, layout, new MigrationProgress());
  }

  /** @param progress where a migration of an older schema reports what it does (for health) */
  public SchemaManager(SearchStore store, String prefix, IndexLayout layout, MigrationProgress progress) {
    this(store, prefix, layout, progress, Clock.systemUTC());
  }

  /** @param clock what a migration's lease and progress log read (the node's clock) */
  public SchemaManager(SearchStore store, String prefix, IndexLayout layout, MigrationProgress progress,
      Clock clock) {
    this(store, prefix, layout, SchemaMigration.Settings.defaults(clock), progress);
  }

  SchemaManager(SearchStore store, String prefix, IndexLayout layout, SchemaMigration.Settings migration,
      MigrationProgress progress) {
    this.store = Objects.requireNonNull(store);
    this.prefix = validPrefix(prefix);
    this.layout = Objects.requireNonNull(layout);
    this.migration = Objects.requireNonNull(migration);
    this.progress = Objects.requireNonNull(progress);
  }

  public static String validPrefix(String prefix) {
    return validPrefix("index prefix", prefix);
  }

  /**
   * The one rule for the read model's index prefix, wherever it is configured; the message names {@code key} (e.g.
   * {@code flowpipe.exporter.index-prefix}).
   */
  public static String validPrefix(String key, String prefix) {
    if (prefix == null || !PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException(key + " must be lowercase letters, digits, '-', '_' or '.', starting with a"
          + " letter or digit, at most 100 characters, was '" + prefix + "'");
    }
    return prefix;
  }

  /**
   * Migrates a read model of the previous schema version (or waits for the process that does), then creates what is
   * missing and checks what exists: the shared read-model index with one alias per entity, and the indices of their
   * own (dead letters, export positions). An existing index or alias of another schema version is refused, named.
   */
  public void ensureSchema() {
    // an entity name that already exists (as an alias, or as a stray index) must carry this build's schema version
    for (ReadModelIndex index : ReadModelIndex.values()) {
      String name = index.indexName(prefix);
      if (store.indexExists(name)) {
        checkVersion(name);
      }
    }
    new SchemaMigration(store, prefix, layout, migration, progress).runIfNeeded();
    String shared = ReadModelIndex.sharedIndexName(prefix);
    ensureIndex(shared, () -> ReadModelIndex.sharedIndexBody(prefix, layout));
    addNewFields();
    for (ReadModelIndex own : ReadModelIndex.values()) {
      if (!own.shared()) {
        ensureIndex(own.indexName(prefix), () -> own.body(layout));
      }
    }
    for (ReadModelIndex index : ReadModelIndex.values()) {
      String name = index.indexName(prefix);
      if (!store.indexExists(name)) {
        throw new IllegalStateException(
            "index " + shared + " exists but the alias " + name + " is missing; delete the index or use another"
                + " index prefix");
      }
    }
  }

  /**
   * Adds the fields this build's mappings declare to an existing read model of the same schema version (additive
   * only; the same request on an up-to-date index changes nothing). Documents written before keep what they had: a new
   * field is absent from them, and a new sub-field (e.g. {@code errorMessage.keyword}) is indexed only for documents
   * written from now on.
   */
  private void addNewFields() {
    store.admin().request("add new fields to " + ReadModelIndex.sharedIndexName(prefix), "PUT",
        "/" + ReadModelIndex.sharedIndexPattern(prefix) + "/_mapping?allow_no_indices=true&ignore_unavailable=true",
        mappingUpdate());
  }

  private static JsonNode mappingUpdate() {
    try {
      return new ObjectMapper().readTree(ReadModelIndex.sharedMappingUpdate());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void ensureIndex(String name, Supplier<String> body) {
    if (store.indexExists(name)) {
      checkVersion(name);
    } else if (store.createIndex(name, body.get())) {
      LOG.info("created index {} ({} shard(s), {} replica(s))", name, layout.shards(), layout.replicas());
    } else {
      checkVersion(name); // created concurrently by another partition's exporter
    }
  }

  private void checkVersion(String name) {
    Map<String, Object> meta = store.mappingMeta(name);
    Object version = meta.get("schemaVersion");
    if (!(version instanceof Number number) || number.intValue() != ReadModelIndex.SCHEMA_VERSION) {
      throw new IllegalStateException(
          "index " + name + " exists with schemaVersion " + version + " but this build writes schemaVersion "
              + ReadModelIndex.SCHEMA_VERSION + " (and migrates only from schemaVersion " + PreviousSchema.VERSION
              + "); use another index prefix or delete the index");
    }
  }

  public String prefix() {
    return prefix;
  }
}
