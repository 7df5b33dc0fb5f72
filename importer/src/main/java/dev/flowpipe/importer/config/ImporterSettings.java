package dev.flowpipe.importer.config;

import dev.flowpipe.exporter.batch.BulkFlushPolicy;
import dev.flowpipe.exporter.config.DataSizeText;
import dev.flowpipe.exporter.config.DurationText;
import dev.flowpipe.importer.source.RawRecordIndices;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.schema.store.StoreTls;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The importer's settings, the {@code flowpipe.importer.*} keys, validated on construction: a bad value fails naming
 * its full key and the value.
 *
 * @param enabled whether the node runs the importer ({@code enabled}, default false)
 * @param source the store holding the stock exporter's raw records ({@code source-url}, {@code source-username},
 *     {@code source-password})
 * @param sourcePrefix the stock exporter's index prefix ({@code source-prefix}, default {@code zeebe-record})
 * @param target the store the read model is written to ({@code target-url}, ...; default: the source store); each
 *     store's https trust under {@code source-tls-*} and {@code target-tls-*} (see {@link StoreTls})
 * @param indexPrefix prefix of the read model's indices ({@code index-prefix}, default {@code flowpipe})
 * @param pageSize raw records read per search and value type ({@code page-size}, 1 to 10000)
 * @param bulkSize flush when this many documents are buffered ({@code bulk-size})
 * @param bulkMemoryLimitBytes flush when the buffered documents take about this much memory ({@code bulk-memory-limit})
 * @param bulkRefresh each bulk makes what it wrote searchable before it returns ({@code bulk-refresh})
 * @param visibilityGrace where the store does not let the importer list its bulks in flight: how long after a record
 *     is searchable the records written with it count as written too ({@code visibility-grace}; see VisibilityWatermark)
 * @param pollInterval wait between reads when nothing new is found ({@code poll-interval})
 * @param retryBackoff first wait after a failed read or write, doubled per failure ({@code retry-backoff})
 * @param maxRetryBackoff longest wait between attempts ({@code max-retry-backoff})
 * @param variableValueLimit as the exporter's {@code variable-value-limit}: must match it for the same read model
 * @param recentDocuments written documents remembered so later changes need no read ({@code recent-documents})
 * @param gapAlarm a hole in a value type's counters older than this is logged as an error ({@code gap-alarm})
 * @param discoveryInterval how often to look for partitions not imported yet ({@code discovery-interval})
 */
public record ImporterSettings(
    boolean enabled,
    StoreConnection source,
    String sourcePrefix,
    StoreConnection target,
    String indexPrefix,
    int pageSize,
    int bulkSize,
    long bulkMemoryLimitBytes,
    boolean bulkRefresh,
    Duration visibilityGrace,
    Duration pollInterval,
    Duration retryBackoff,
    Duration maxRetryBackoff,
    int variableValueLimit,
    int recentDocuments,
    Duration gapAlarm,
    Duration discoveryInterval) {

  public static final String PREFIX = "flowpipe.importer.";
  public static final int MAX_PAGE_SIZE = 10_000;

  /** Every key under {@link #PREFIX}: any other is a typo, refused rather than silently ignored. */
  public static final Set<String> KEYS = Set.of("enabled", "source-url", "source-username", "source-password",
      "source-prefix", "target-url", "target-username", "target-password", "index-prefix", "page-size", "bulk-size",
      "bulk-memory-limit", "bulk-refresh", "visibility-grace", "poll-interval", "retry-backoff", "max-retry-backoff",
      "variable-value-limit", "recent-documents", "gap-alarm", "discovery-interval", "connect-timeout",
      "request-timeout", "source-tls-trust-store", "source-tls-trust-store-password", "source-tls-trust-store-type",
      "source-tls-ca-certificate", "source-tls-verify-hostname", "target-tls-trust-store",
      "target-tls-trust-store-password", "target-tls-trust-store-type", "target-tls-ca-certificate",
      "target-tls-verify-hostname");

  public ImporterSettings {
    try {
      new RawRecordIndices(sourcePrefix);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(PREFIX + "source-prefix: " + e.getMessage(), e);
    }
    SchemaManager.validPrefix(PREFIX + "index-prefix", indexPrefix);
    between("page-size", pageSize, 1, MAX_PAGE_SIZE);
    between("bulk-size", bulkSize, 1, 100_000);
    if (bulkMemoryLimitBytes < 1024) {
      throw new IllegalArgumentException(
          PREFIX + "bulk-memory-limit must be at least 1KB, was " + bulkMemoryLimitBytes + " bytes");
    }
    notNegative("visibility-grace", visibilityGrace);
    positive("poll-interval", pollInterval);
    positive("retry-backoff", retryBackoff);
    positive("max-retry-backoff", maxRetryBackoff);
    if (maxRetryBackoff.compareTo(retryBackoff) < 0) {
      throw new IllegalArgumentException(
          PREFIX + "max-retry-backoff must be >= retry-backoff (" + retryBackoff + "), was " + maxRetryBackoff);
    }
    between("variable-value-limit", variableValueLimit, 1, Integer.MAX_VALUE);
    between("recent-documents", recentDocuments, 0, Integer.MAX_VALUE);
    positive("gap-alarm", gapAlarm);
    positive("discovery-interval", discoveryInterval);
  }

  /**
   * Reads the settings from flat properties with their full keys ({@code flowpipe.importer.page-size}); absent keys take
   * their defaults; a key under the prefix that is no setting fails. {@code defaultStoreUrl} stands in for an absent
   * {@code source-url} (the node's own store), or null.
   */
  public static ImporterSettings fromProperties(Map<String, ?> properties, String defaultStoreUrl) {
    for (String key : new TreeSet<>(properties.keySet())) {
      if (key.startsWith(PREFIX) && !KEYS.contains(key.substring(PREFIX.length()))) {
        throw new IllegalArgumentException(key + "=" + properties.get(key) + ": " + key
            + " is not a setting of the importer; known: " + new TreeSet<>(KEYS));
      }
    }
    Values values = new Values(properties);
    boolean enabled = values.bool("enabled", false);
    String sourceUrl = values.text("source-url", defaultStoreUrl);
    if (sourceUrl == null || sourceUrl.isBlank()) {
      throw new IllegalArgumentException(PREFIX + "source-url is required (the store with the raw records)");
    }
    Duration connectTimeout = values.duration("connect-timeout", "5s");
    Duration requestTimeout = values.duration("request-timeout", "30s");
    StoreConnection source = connection("source-url", sourceUrl, values.text("source-username", null),
        values.text("source-password", null), connectTimeout, requestTimeout,
        StoreTls.fromKeys(PREFIX + "source-tls-", properties));
    String targetUrl = values.text("target-url", null);
    StoreConnection target = targetUrl == null || targetUrl.isBlank()
        ? source
        : connection("target-url", targetUrl, values.text("target-username", null),
            values.text("target-password", null), connectTimeout, requestTimeout,
            StoreTls.fromKeys(PREFIX + "target-tls-", properties));
    return new ImporterSettings(
        enabled,
        source,
        values.text("source-prefix", "zeebe-record"),
        target,
        values.text("index-prefix", "flowpipe"),
        values.integer("page-size", 1000),
        values.integer("bulk-size", 1000),
        DataSizeText.parse(PREFIX + "bulk-memory-limit", values.raw("bulk-memory-limit", "20MB")),
        values.bool("bulk-refresh", true),
        values.duration("visibility-grace", "500ms"),
        values.duration("poll-interval", "100ms"),
        values.duration("retry-backoff", "100ms"),
        values.duration("max-retry-backoff", "10s"),
        values.integer("variable-value-limit", 8191),
        values.integer("recent-documents", 10_000),
        values.duration("gap-alarm", "60s"),
        values.duration("discovery-interval", "10s"));
  }

  public BulkFlushPolicy flushPolicy() {
    // the importer flushes whenever a merge round ends, so the delay only bounds a round that never ends
    return new BulkFlushPolicy(Duration.ofSeconds(1), bulkSize, bulkMemoryLimitBytes);
  }

  private static StoreConnection connection(String key, String url, String username, String password,
      Duration connectTimeout, Duration requestTimeout, StoreTls tls) {
    try {
      return new StoreConnection(URI.create(url), username, password, connectTimeout, requestTimeout, tls);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(PREFIX + key + " '" + url + "' is not usable: " + e.getMessage(), e);
    }
  }

  private static void between(String key, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(PREFIX + key + " must be between " + min + " and " + max + ", was " + value);
    }
  }

  private static void positive(String key, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(PREFIX + key + " must be a positive duration, was " + value);
    }
  }

  private static void notNegative(String key, Duration value) {
    if (value.isNegative()) {
      throw new IllegalArgumentException(PREFIX + key + " must not be negative, was " + value);
    }
  }

  @Override
  public String toString() {
    // the connections mask their passwords
    return "ImporterSettings[enabled=" + enabled + ", source=" + source + ", sourcePrefix=" + sourcePrefix
        + ", target=" + target + ", indexPrefix=" + indexPrefix + ", pageSize=" + pageSize + ", bulkSize=" + bulkSize
        + ", visibilityGrace=" + visibilityGrace + ", pollInterval=" + pollInterval + "]";
  }

  /** The properties under {@link #PREFIX}, read with their full keys in every message. */
  private record Values(Map<String, ?> properties) {

    Object raw(String key, Object fallback) {
      Object value = properties.get(PREFIX + key);
      return value == null ? fallback : value;
    }

    String text(String key, String fallback) {
      Object value = properties.get(PREFIX + key);
      return value == null ? fallback : value.toString();
    }

    Duration duration(String key, String fallback) {
      return DurationText.parse(PREFIX + key, raw(key, fallback));
    }

    int integer(String key, int fallback) {
      Object value = raw(key, fallback);
      if (value instanceof Number number) {
        return number.intValue();
      }
      try {
        return Integer.parseInt(value.toString().trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(PREFIX + key + " must be a whole number, was '" + value + "'", e);
      }
    }

    boolean bool(String key, boolean fallback) {
      Object value = raw(key, fallback);
      if (value instanceof Boolean bool) {
        return bool;
      }
      return switch (value.toString().trim().toLowerCase(Locale.ROOT)) {
        case "true" -> true;
        case "false" -> false;
        default -> throw new IllegalArgumentException(PREFIX + key + " must be true or false, was '" + value + "'");
      };
    }
  }
}
