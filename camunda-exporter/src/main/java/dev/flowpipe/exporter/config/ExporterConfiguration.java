package dev.flowpipe.exporter.config;

import dev.flowpipe.exporter.batch.BulkFlushPolicy;
import dev.flowpipe.schema.index.IndexLayout;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.schema.store.StoreTls;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * The exporter's settings, built from the broker's exporter arguments (a flat map of the keys below) and validated on
 * construction: a bad value fails naming its key.
 *
 * @param store where to write, and over https which certificates to trust ({@code tls-trust-store},
 *     {@code tls-trust-store-password}, {@code tls-trust-store-type}, {@code tls-ca-certificate},
 *     {@code tls-verify-hostname})
 * @param indexPrefix prefix of every index name ({@code index-prefix})
 * @param indexLayout refresh interval, shards and replicas of the indices it creates ({@code index-refresh-interval},
 *     e.g. "100ms"; {@code index-shards}, default 1; {@code index-replicas}, default 0)
 * @param bulkDelay longest time a record waits in the buffer before a flush ({@code bulk-delay})
 * @param bulkSize flush when this many documents are buffered ({@code bulk-size})
 * @param bulkMemoryLimitBytes flush when the buffered documents take about this much memory ({@code
 *     bulk-memory-limit}, e.g. "20MB")
 * @param bulkRefresh each bulk asks the store to refresh the shards it wrote to, so its documents are searchable when
 *     it is acknowledged instead of at the next scheduled refresh ({@code bulk-refresh}, true or false)
 * @param bulksInFlight how many bulks may be written at once, 1 to {@value #MAX_BULKS_IN_FLIGHT}: with more than one,
 *     a bulk that is due goes while a slow one is still being written ({@code bulks-in-flight})
 * @param variableValueLimit variable values longer than this many characters are truncated in {@code value}
 *     ({@code variable-value-limit})
 * @param recentDocuments how many written documents to remember so later changes need no read
 *     ({@code recent-documents})
 * @param retryBackoff first wait after a failed flush, doubled per failure ({@code retry-backoff})
 * @param maxRetryBackoff longest wait between flush attempts ({@code max-retry-backoff})
 * @param onForeignStore what to do when the store's read model of the partition comes from another broker log
 *     ({@code on-foreign-store}: {@code refuse}, the default, or {@code wipe-read-model})
 */
public record ExporterConfiguration(
    StoreConnection store,
    String indexPrefix,
    IndexLayout indexLayout,
    Duration bulkDelay,
    int bulkSize,
    long bulkMemoryLimitBytes,
    boolean bulkRefresh,
    int bulksInFlight,
    int variableValueLimit,
    int recentDocuments,
    Duration retryBackoff,
    Duration maxRetryBackoff,
    OnForeignStore onForeignStore) {

  public static final String URL = "url";
  public static final String USERNAME = "username";
  public static final String PASSWORD = "password";
  public static final String CONNECT_TIMEOUT = "connect-timeout";
  public static final String REQUEST_TIMEOUT = "request-timeout";
  /** Prefix of the TLS keys ({@code tls-trust-store}, ...; see {@link StoreTls}). */
  public static final String TLS = "tls-";
  public static final String INDEX_PREFIX = "index-prefix";
  public static final String REFRESH_INTERVAL = "index-refresh-interval";
  public static final String INDEX_SHARDS = "index-shards";
  public static final String INDEX_REPLICAS = "index-replicas";
  public static final String BULK_DELAY = "bulk-delay";
  public static final String BULK_SIZE = "bulk-size";
  public static final String BULK_MEMORY_LIMIT = "bulk-memory-limit";
  public static final String BULK_REFRESH = "bulk-refresh";
  public static final String BULKS_IN_FLIGHT = "bulks-in-flight";
  public static final int MAX_BULKS_IN_FLIGHT = 4;
  public static final String VARIABLE_VALUE_LIMIT = "variable-value-limit";
  public static final String RECENT_DOCUMENTS = "recent-documents";
  public static final String RETRY_BACKOFF = "retry-backoff";
  public static final String MAX_RETRY_BACKOFF = "max-retry-backoff";
  public static final String ON_FOREIGN_STORE = "on-foreign-store";

  public ExporterConfiguration {
    if (bulkDelay.isNegative() || bulkDelay.isZero()) {
      throw new IllegalArgumentException(BULK_DELAY + " must be positive, was " + bulkDelay);
    }
    if (bulkSize < 1) {
      throw new IllegalArgumentException(BULK_SIZE + " must be >= 1, was " + bulkSize);
    }
    if (bulkMemoryLimitBytes < 1024) {
      throw new IllegalArgumentException(BULK_MEMORY_LIMIT + " must be at least 1KB, was " + bulkMemoryLimitBytes + " bytes");
    }
    if (bulksInFlight < 1 || bulksInFlight > MAX_BULKS_IN_FLIGHT) {
      throw new IllegalArgumentException(
          BULKS_IN_FLIGHT + " must be between 1 and " + MAX_BULKS_IN_FLIGHT + ", was " + bulksInFlight);
    }
    if (variableValueLimit < 1) {
      throw new IllegalArgumentException(VARIABLE_VALUE_LIMIT + " must be >= 1, was " + variableValueLimit);
    }
    if (recentDocuments < 0) {
      throw new IllegalArgumentException(RECENT_DOCUMENTS + " must be >= 0, was " + recentDocuments);
    }
    if (retryBackoff.isNegative() || retryBackoff.isZero()) {
      throw new IllegalArgumentException(RETRY_BACKOFF + " must be positive, was " + retryBackoff);
    }
    if (maxRetryBackoff.compareTo(retryBackoff) < 0) {
      throw new IllegalArgumentException(
          MAX_RETRY_BACKOFF + " must be >= " + RETRY_BACKOFF + " (" + retryBackoff + "), was " + maxRetryBackoff);
    }
    SchemaManager.validPrefix(INDEX_PREFIX, indexPrefix);
  }

  /** Reads the broker's exporter arguments; absent keys take their defaults. */
  public static ExporterConfiguration fromArguments(Map<String, Object> args) {
    Object url = args.get(URL);
    if (url == null || url.toString().isBlank()) {
      throw new IllegalArgumentException(URL + " is required (the search store's URL)");
    }
    StoreTls tls = StoreTls.fromKeys(TLS, args);
    StoreConnection store;
    try {
      store =
          new StoreConnection(
              URI.create(url.toString()),
              text(args, USERNAME),
              text(args, PASSWORD),
              DurationText.parse(CONNECT_TIMEOUT, args.getOrDefault(CONNECT_TIMEOUT, "5s")),
              DurationText.parse(REQUEST_TIMEOUT, args.getOrDefault(REQUEST_TIMEOUT, "30s")),
              tls);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(URL + " '" + url + "' is not usable: " + e.getMessage(), e);
    }
    return new ExporterConfiguration(
        store,
        args.getOrDefault(INDEX_PREFIX, "flowpipe").toString(),
        layout(args),
        DurationText.parse(BULK_DELAY, args.getOrDefault(BULK_DELAY, "100ms")),
        integer(args, BULK_SIZE, 1000),
        DataSizeText.parse(BULK_MEMORY_LIMIT, args.getOrDefault(BULK_MEMORY_LIMIT, "20MB")),
        bool(args, BULK_REFRESH, true),
        integer(args, BULKS_IN_FLIGHT, 1),
        integer(args, VARIABLE_VALUE_LIMIT, 8191),
        integer(args, RECENT_DOCUMENTS, 10000),
        DurationText.parse(RETRY_BACKOFF, args.getOrDefault(RETRY_BACKOFF, "100ms")),
        DurationText.parse(MAX_RETRY_BACKOFF, args.getOrDefault(MAX_RETRY_BACKOFF, "10s")),
        OnForeignStore.parse(ON_FOREIGN_STORE, args.getOrDefault(ON_FOREIGN_STORE, OnForeignStore.REFUSE.text())));
  }

  private static IndexLayout layout(Map<String, Object> args) {
    String refreshInterval = args.getOrDefault(REFRESH_INTERVAL, "1s").toString();
    int shards = integer(args, INDEX_SHARDS, 1);
    int replicas = integer(args, INDEX_REPLICAS, 0);
    try {
      return new IndexLayout(refreshInterval, shards, replicas);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(REFRESH_INTERVAL + ", " + INDEX_SHARDS + ", " + INDEX_REPLICAS + ": "
          + e.getMessage(), e);
    }
  }

  public BulkFlushPolicy flushPolicy() {
    return new BulkFlushPolicy(bulkDelay, bulkSize, bulkMemoryLimitBytes);
  }

  private static String text(Map<String, Object> args, String key) {
    Object value = args.get(key);
    return value == null ? null : value.toString();
  }

  private static boolean bool(Map<String, Object> args, String key, boolean fallback) {
    Object value = args.get(key);
    if (value == null) {
      return fallback;
    }
    if (value instanceof Boolean bool) {
      return bool;
    }
    return switch (value.toString().trim().toLowerCase(java.util.Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(key + " must be true or false, was '" + value + "'");
    };
  }

  private static int integer(Map<String, Object> args, String key, int fallback) {
    Object value = args.get(key);
    if (value == null) {
      return fallback;
    }
    if (value instanceof Number number) {
      return number.intValue();
    }
    try {
      return Integer.parseInt(value.toString().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a whole number, was '" + value + "'", e);
    }
  }
}
