package dev.flowpipe.writer.config;

import dev.flowpipe.schema.index.IndexLayout;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.schema.store.StoreTls;
import dev.flowpipe.writer.batch.BulkFlushPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * How the read model is written, for the exporter and the importer alike: one validated record, read once from a
 * flat map of the keys below by {@link #fromArguments(Map)} (the exporter's arguments, as a stock broker hands them)
 * or, with a prefix and a connection of its own, by {@link #fromArguments(SettingValues, StoreConnection)} (the
 * importer's {@code flowpipe.importer.*} properties). Each default and each rule is written here once; a bad value
 * fails naming its key and the value.
 *
 * @param store where to write ({@code url}, {@code username}, {@code password}, {@code connect-timeout},
 *     {@code request-timeout}; over https which certificates to trust: {@code tls-trust-store},
 *     {@code tls-trust-store-password}, {@code tls-trust-store-type}, {@code tls-ca-certificate},
 *     {@code tls-verify-hostname})
 * @param indexPrefix prefix of every index name ({@code index-prefix}, default {@code flowpipe})
 * @param indexLayout refresh interval, shards and replicas of the indices it creates ({@code index-refresh-interval},
 *     default 1s; {@code index-shards}, default 1; {@code index-replicas}, default 0)
 * @param flushPolicy when the buffer is written: {@code bulk-delay} (default 100ms), {@code bulk-size} (documents,
 *     default 1000), {@code bulk-memory-limit} (default 20MB)
 * @param bulkRefresh each bulk asks the store to refresh the shards it wrote to, so its documents are searchable when
 *     it is acknowledged instead of at the next scheduled refresh ({@code bulk-refresh}, default true)
 * @param bulksInFlight how many bulks may be written at once, 1 to {@value #MAX_BULKS_IN_FLIGHT}
 *     ({@code bulks-in-flight}, default 1)
 * @param variableValueLimit variable values longer than this many characters are truncated in {@code value}
 *     ({@code variable-value-limit}, default 8191)
 * @param recentDocuments how many written documents to remember so later changes need no read
 *     ({@code recent-documents}, default 10000)
 * @param retryBackoff first wait after a failed write, doubled per failure ({@code retry-backoff}, default 100ms)
 * @param maxRetryBackoff longest wait between attempts ({@code max-retry-backoff}, default 10s)
 */
public record WriterSettings(
    StoreConnection store,
    String indexPrefix,
    IndexLayout indexLayout,
    BulkFlushPolicy flushPolicy,
    boolean bulkRefresh,
    int bulksInFlight,
    int variableValueLimit,
    int recentDocuments,
    Duration retryBackoff,
    Duration maxRetryBackoff) {

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

  public static final String DEFAULT_INDEX_PREFIX = "flowpipe";

  public WriterSettings {
    check(new SettingValues(Map.of(), ""), bulksInFlight, variableValueLimit, recentDocuments, retryBackoff,
        maxRetryBackoff);
    SchemaManager.validPrefix(INDEX_PREFIX, indexPrefix);
  }

  /** Reads the exporter's arguments; absent keys take their defaults. */
  public static WriterSettings fromArguments(Map<String, ?> args) {
    SettingValues values = new SettingValues(args, "");
    String url = values.text(URL, null);
    if (url == null) {
      throw new IllegalArgumentException(URL + " is required (the search store's URL)");
    }
    return fromArguments(values, connection(values, URL, url, USERNAME, PASSWORD, TLS));
  }

  /**
   * Reads the writer's keys under {@code values}' prefix (the importer's {@code flowpipe.importer.bulk-size}), writing
   * to {@code store}; absent keys take their defaults.
   */
  public static WriterSettings fromArguments(SettingValues values, StoreConnection store) {
    String indexPrefix = values.text(INDEX_PREFIX, DEFAULT_INDEX_PREFIX);
    SchemaManager.validPrefix(values.key(INDEX_PREFIX), indexPrefix);
    BulkFlushPolicy policy = BulkFlushPolicy.checked(BulkFlushPolicy.Keys.ARGUMENTS.under(values.prefix()),
        values.duration(BULK_DELAY, "100ms"), values.integer(BULK_SIZE, 1000),
        values.bytes(BULK_MEMORY_LIMIT, "20MB"));
    int bulksInFlight = values.integer(BULKS_IN_FLIGHT, 1);
    int variableValueLimit = values.integer(VARIABLE_VALUE_LIMIT, 8191);
    int recentDocuments = values.integer(RECENT_DOCUMENTS, 10_000);
    Duration retryBackoff = values.duration(RETRY_BACKOFF, "100ms");
    Duration maxRetryBackoff = values.duration(MAX_RETRY_BACKOFF, "10s");
    check(values, bulksInFlight, variableValueLimit, recentDocuments, retryBackoff, maxRetryBackoff);
    return new WriterSettings(store, indexPrefix, layout(values), policy, values.bool(BULK_REFRESH, true),
        bulksInFlight, variableValueLimit, recentDocuments, retryBackoff, maxRetryBackoff);
  }

  /**
   * A store connection from the keys {@code urlKey}, {@code usernameKey}, ... under {@code values}' prefix, with the
   * shared {@code connect-timeout} and {@code request-timeout} (absent: {@link StoreConnection}'s defaults); a URL
   * it cannot use fails naming {@code urlKey}.
   */
  public static StoreConnection connection(SettingValues values, String urlKey, String url, String usernameKey,
      String passwordKey, String tlsPrefix) {
    try {
      return new StoreConnection(URI.create(url), values.text(usernameKey, null), values.text(passwordKey, null),
          values.durationOrNull(CONNECT_TIMEOUT), values.durationOrNull(REQUEST_TIMEOUT),
          StoreTls.fromKeys(values.key(tlsPrefix), values.values()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(values.key(urlKey) + " '" + url + "' is not usable: " + e.getMessage(), e);
    }
  }

  /** The rules of the settings not in {@link BulkFlushPolicy}, with messages naming the keys under the prefix. */
  private static void check(SettingValues keys, int bulksInFlight, int variableValueLimit, int recentDocuments,
      Duration retryBackoff, Duration maxRetryBackoff) {
    keys.between(BULKS_IN_FLIGHT, bulksInFlight, 1, MAX_BULKS_IN_FLIGHT);
    keys.between(VARIABLE_VALUE_LIMIT, variableValueLimit, 1, Integer.MAX_VALUE);
    keys.between(RECENT_DOCUMENTS, recentDocuments, 0, Integer.MAX_VALUE);
    keys.positive(RETRY_BACKOFF, retryBackoff);
    if (maxRetryBackoff.compareTo(retryBackoff) < 0) {
      throw new IllegalArgumentException(keys.key(MAX_RETRY_BACKOFF) + " must be >= " + keys.key(RETRY_BACKOFF) + " ("
          + retryBackoff + "), was " + maxRetryBackoff);
    }
  }

  private static IndexLayout layout(SettingValues values) {
    String refreshInterval = values.text(REFRESH_INTERVAL, "1s");
    int shards = values.integer(INDEX_SHARDS, 1);
    int replicas = values.integer(INDEX_REPLICAS, 0);
    try {
      return new IndexLayout(refreshInterval, shards, replicas);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(values.key(REFRESH_INTERVAL) + ", " + values.key(INDEX_SHARDS) + ", "
          + values.key(INDEX_REPLICAS) + ": " + e.getMessage(), e);
    }
  }
}
