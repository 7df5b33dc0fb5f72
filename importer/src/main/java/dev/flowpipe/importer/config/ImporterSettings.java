package dev.flowpipe.importer.config;

import dev.flowpipe.importer.source.RawRecordIndices;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.schema.store.StoreTls;
import dev.flowpipe.writer.config.SettingValues;
import dev.flowpipe.writer.config.WriterSettings;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The importer's settings, the {@code flowpipe.importer.*} keys, validated on construction: a bad value fails naming
 * its full key and the value. How the read model is written is the {@link WriterSettings} the exporter has too, read
 * by the same parser from the same key names under this prefix ({@code bulk-size}, {@code bulk-memory-limit},
 * {@code bulk-refresh}, {@code retry-backoff}, {@code max-retry-backoff}, {@code variable-value-limit},
 * {@code recent-documents}, {@code index-prefix}), with the target store as its connection.
 *
 * @param enabled whether the node runs the importer ({@code enabled}, default false)
 * @param source the store holding the stock exporter's raw records ({@code source-url}, {@code source-username},
 *     {@code source-password}; {@code connect-timeout} and {@code request-timeout} for both stores)
 * @param sourcePrefix the stock exporter's index prefix ({@code source-prefix}, default {@code zeebe-record})
 * @param writer how the read model is written, and where: the target store ({@code target-url}, ...; default: the
 *     source store); each store's https trust under {@code source-tls-*} and {@code target-tls-*} (see {@link StoreTls})
 * @param pageSize raw records read per search and value type ({@code page-size}, 1 to 10000)
 * @param visibilityGrace where the store does not let the importer list its bulks in flight: how long after a record
 *     is searchable the records written with it count as written too ({@code visibility-grace}; see VisibilityWatermark)
 * @param pollInterval wait between reads when nothing new is found ({@code poll-interval})
 * @param gapAlarm a hole in a value type's counters older than this is logged as an error ({@code gap-alarm})
 * @param discoveryInterval how often to look for partitions not imported yet ({@code discovery-interval})
 */
public record ImporterSettings(
    boolean enabled,
    StoreConnection source,
    String sourcePrefix,
    WriterSettings writer,
    int pageSize,
    Duration visibilityGrace,
    Duration pollInterval,
    Duration gapAlarm,
    Duration discoveryInterval) {

  public static final String PREFIX = "flowpipe.importer.";
  public static final int MAX_PAGE_SIZE = 10_000;

  /** Every key under {@link #PREFIX}: any other is a typo, refused rather than silently ignored. */
  public static final Set<String> KEYS = Set.of("enabled", "source-url", "source-username", "source-password",
      "source-prefix", "target-url", "target-username", "target-password", WriterSettings.INDEX_PREFIX, "page-size",
      WriterSettings.BULK_SIZE, WriterSettings.BULK_MEMORY_LIMIT, WriterSettings.BULK_REFRESH, "visibility-grace",
      "poll-interval", WriterSettings.RETRY_BACKOFF, WriterSettings.MAX_RETRY_BACKOFF,
      WriterSettings.VARIABLE_VALUE_LIMIT, WriterSettings.RECENT_DOCUMENTS, "gap-alarm", "discovery-interval",
      WriterSettings.CONNECT_TIMEOUT, WriterSettings.REQUEST_TIMEOUT, "source-tls-trust-store",
      "source-tls-trust-store-password", "source-tls-trust-store-type", "source-tls-ca-certificate",
      "source-tls-verify-hostname", "target-tls-trust-store", "target-tls-trust-store-password",
      "target-tls-trust-store-type", "target-tls-ca-certificate", "target-tls-verify-hostname");

  private static final SettingValues KEYED = new SettingValues(Map.of(), PREFIX);

  public ImporterSettings {
    try {
      new RawRecordIndices(sourcePrefix);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(PREFIX + "source-prefix: " + e.getMessage(), e);
    }
    KEYED.between("page-size", pageSize, 1, MAX_PAGE_SIZE);
    if (visibilityGrace.isNegative()) {
      throw new IllegalArgumentException(PREFIX + "visibility-grace must not be negative, was " + visibilityGrace);
    }
    KEYED.positive("poll-interval", pollInterval);
    KEYED.positive("gap-alarm", gapAlarm);
    KEYED.positive("discovery-interval", discoveryInterval);
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
    SettingValues values = new SettingValues(properties, PREFIX);
    boolean enabled = values.bool("enabled", false);
    String sourceUrl = values.text("source-url", defaultStoreUrl);
    if (sourceUrl == null || sourceUrl.isBlank()) {
      throw new IllegalArgumentException(PREFIX + "source-url is required (the store with the raw records)");
    }
    StoreConnection source =
        WriterSettings.connection(values, "source-url", sourceUrl, "source-username", "source-password", "source-tls-");
    String targetUrl = values.text("target-url", null);
    StoreConnection target = targetUrl == null
        ? source
        : WriterSettings.connection(values, "target-url", targetUrl, "target-username", "target-password",
            "target-tls-");
    return new ImporterSettings(
        enabled,
        source,
        values.text("source-prefix", "zeebe-record"),
        WriterSettings.fromArguments(values, target),
        values.integer("page-size", 1000),
        values.duration("visibility-grace", "500ms"),
        values.duration("poll-interval", "100ms"),
        values.duration("gap-alarm", "60s"),
        values.duration("discovery-interval", "10s"));
  }

  /** The store the read model is written to. */
  public StoreConnection target() {
    return writer.store();
  }

  /** Prefix of the read model's indices. */
  public String indexPrefix() {
    return writer.indexPrefix();
  }
}
