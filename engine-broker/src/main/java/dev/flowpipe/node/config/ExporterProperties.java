package dev.flowpipe.node.config;

import dev.flowpipe.exporter.config.ExporterConfiguration;
import dev.flowpipe.exporter.config.OnForeignStore;
import dev.flowpipe.schema.index.IndexLayout;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.writer.batch.BulkFlushPolicy;
import dev.flowpipe.writer.config.WriterSettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The in-broker exporter ({@code flowpipe.exporter.*}).
 *
 * @param enabled register the exporter in the broker
 * @param indexPrefix prefix of the read model's index names
 * @param indexRefreshInterval how often the store makes new documents searchable on its own; with bulk refresh on,
 *     each bulk does that for what it wrote, and a shorter interval only adds refreshes that slow the bulks' tail
 * @param bulk when buffered documents are written
 * @param retry waits between attempts after a failed write
 * @param variableValueLimit variable values longer than this many characters are searchable by their beginning only
 *     (the whole value is kept unindexed)
 * @param recentDocuments how many written documents the exporter remembers, so later changes need no read
 * @param indexShards primary shards of each read-model index, set when the index is created (1 for a single store
 *     node; more for an external cluster)
 * @param indexReplicas replicas of each read-model index, set when the index is created (0 for a single store node)
 * @param onForeignStore what to do when the store's read model of a partition comes from another broker log than
 *     this node's (its broker data deleted, another cluster's store): refuse (the node does not start, or the exporter
 *     writes and acknowledges nothing, naming both logs) or wipe-read-model (delete that partition's read model, then
 *     export this log)
 */
public record ExporterProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("flowpipe") String indexPrefix,
    @DefaultValue("1s") Duration indexRefreshInterval,
    @DefaultValue Bulk bulk,
    @DefaultValue Retry retry,
    @DefaultValue("8191") int variableValueLimit,
    @DefaultValue("10000") int recentDocuments,
    @DefaultValue("1") int indexShards,
    @DefaultValue("0") int indexReplicas,
    @DefaultValue("refuse") OnForeignStore onForeignStore) {

  private static final String P = "flowpipe.exporter.";

  public ExporterProperties {
    SchemaManager.validPrefix(P + "index-prefix", indexPrefix);
    Check.positive(P + "index-refresh-interval", indexRefreshInterval);
    Check.atLeast(P + "variable-value-limit", variableValueLimit, 1);
    Check.atLeast(P + "recent-documents", recentDocuments, 0);
    Check.atLeast(P + "index-shards", indexShards, 1);
    Check.atLeast(P + "index-replicas", indexReplicas, 0);
    try {
      new IndexLayout(indexRefreshInterval.toMillis() + "ms", indexShards, indexReplicas);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(P + "index-shards / index-replicas: " + e.getMessage(), e);
    }
  }

  /** How the read model's indices are created. */
  public IndexLayout indexLayout() {
    return new IndexLayout(indexRefreshInterval.toMillis() + "ms", indexShards, indexReplicas);
  }

  /**
   * @param delay longest time a record waits before its bulk is written (e.g. 20ms, 1s)
   * @param size write when this many documents are buffered
   * @param memoryLimit write when the buffered documents take about this much memory
   * @param refresh each bulk refreshes the shards it wrote to, so what it wrote is searchable as soon as it is
   *     durable, without waiting up to {@code index-refresh-interval}
   * @param inFlight how many bulks may be written at once (1-4): with more than one, a bulk that is due goes while a
   *     slow one is still being written
   */
  public record Bulk(
      @DefaultValue("100ms") Duration delay,
      @DefaultValue("1000") int size,
      @DefaultValue("20MB") DataSize memoryLimit,
      @DefaultValue("true") boolean refresh,
      @DefaultValue("1") int inFlight) {
    public Bulk {
      // the writer's one statement of the bulk rules, with this file's keys in its messages
      BulkFlushPolicy.checked(new BulkFlushPolicy.Keys(P + "bulk.delay", P + "bulk.size", P + "bulk.memory-limit"),
          delay, size, memoryLimit == null ? 0 : memoryLimit.toBytes());
      Check.between(P + "bulk.in-flight", inFlight, 1, WriterSettings.MAX_BULKS_IN_FLIGHT);
    }
  }

  /**
   * @param backoff first wait after a failed write, doubled per failure
   * @param maxBackoff longest wait between attempts
   */
  public record Retry(@DefaultValue("100ms") Duration backoff, @DefaultValue("10s") Duration maxBackoff) {
    public Retry {
      Check.positive(P + "retry.backoff", backoff);
      Check.positive(P + "retry.max-backoff", maxBackoff);
      if (maxBackoff.compareTo(backoff) < 0) {
        throw new IllegalArgumentException(
            P + "retry.max-backoff (" + maxBackoff + ") must be >= " + P + "retry.backoff (" + backoff + ")");
      }
    }
  }

  /** The broker exporter arguments for the store of {@code connection}. */
  public Map<String, Object> exporterArguments(StoreConnection connection) {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put(WriterSettings.URL, connection.url().toString());
    if (connection.username() != null) {
      args.put(WriterSettings.USERNAME, connection.username());
      args.put(WriterSettings.PASSWORD, connection.password());
    }
    args.putAll(connection.tls().toKeys(WriterSettings.TLS));
    args.put(WriterSettings.CONNECT_TIMEOUT, connection.connectTimeout().toString());
    args.put(WriterSettings.REQUEST_TIMEOUT, connection.requestTimeout().toString());
    args.put(WriterSettings.INDEX_PREFIX, indexPrefix);
    args.put(WriterSettings.REFRESH_INTERVAL, indexRefreshInterval.toMillis() + "ms");
    args.put(WriterSettings.INDEX_SHARDS, indexShards);
    args.put(WriterSettings.INDEX_REPLICAS, indexReplicas);
    args.put(WriterSettings.BULK_DELAY, bulk.delay().toString());
    args.put(WriterSettings.BULK_SIZE, bulk.size());
    args.put(WriterSettings.BULK_MEMORY_LIMIT, bulk.memoryLimit().toBytes());
    args.put(WriterSettings.BULK_REFRESH, bulk.refresh());
    args.put(WriterSettings.BULKS_IN_FLIGHT, bulk.inFlight());
    args.put(WriterSettings.VARIABLE_VALUE_LIMIT, variableValueLimit);
    args.put(WriterSettings.RECENT_DOCUMENTS, recentDocuments);
    args.put(WriterSettings.RETRY_BACKOFF, retry.backoff().toString());
    args.put(WriterSettings.MAX_RETRY_BACKOFF, retry.maxBackoff().toString());
    args.put(ExporterConfiguration.ON_FOREIGN_STORE, onForeignStore.text());
    return args;
  }
}
