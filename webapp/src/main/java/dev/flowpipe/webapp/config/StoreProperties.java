package dev.flowpipe.webapp.config;

import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.schema.store.StoreTls;
import dev.flowpipe.settings.Secrets;
import dev.flowpipe.settings.SettingRules;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The search store ({@code flowpipe.store.*}): the one record of the store connection, bound by the node, the web app
 * on its own and the server alike (ADR 0018). The node's embedded store has its own keys beside it
 * ({@code flowpipe.store.embedded.*}).
 *
 * @param url OpenSearch or Elasticsearch 9, e.g. {@code http://search:9200}; none: the node runs an embedded store,
 *     the web app and the server on their own read {@code http://127.0.0.1:9200}
 * @param username basic-auth user for the store, optional
 * @param password basic-auth password for the store, optional; never printed
 * @param connectTimeout how long to wait for a connection to the store
 * @param requestTimeout how long to wait for one answer from the store
 * @param schemaTimeout the node only: how long it waits for each answer while it prepares the read model's schema at
 *     start (creating or migrating an index; a loaded store takes far longer to create an index than to answer a
 *     search, and a node that gave up there would not start at all); at least {@code request-timeout}
 * @param indexPrefix the read model's index prefix, read by the web app and the server on their own (default
 *     {@code flowpipe}); the node writes and reads {@code flowpipe.exporter.index-prefix} and refuses a different one
 *     here
 * @param tls which certificates an {@code https} store may present
 */
@ConfigurationProperties(StoreProperties.PREFIX)
public record StoreProperties(
    String url,
    String username,
    String password,
    @DefaultValue(StoreConnection.DEFAULT_CONNECT_TIMEOUT_SECONDS + "s") Duration connectTimeout,
    @DefaultValue(StoreConnection.DEFAULT_REQUEST_TIMEOUT_SECONDS + "s") Duration requestTimeout,
    @DefaultValue("5m") Duration schemaTimeout,
    String indexPrefix,
    @DefaultValue Tls tls) {

  /** The keys' prefix. */
  public static final String PREFIX = "flowpipe.store";

  /** The store the web app and the server read when no URL is set. */
  public static final String DEFAULT_URL = "http://127.0.0.1:9200";

  /** The index prefix the web app and the server read when none is set (the exporter's default). */
  public static final String DEFAULT_INDEX_PREFIX = "flowpipe";

  private static final String P = PREFIX + ".";

  /** How long the node waits for each answer while it prepares the schema, when none is set. */
  public static final Duration DEFAULT_SCHEMA_TIMEOUT = Duration.ofMinutes(5);

  public StoreProperties {
    url = url == null || url.isBlank() ? null : url.trim();
    if (url != null) {
      StoreConnection.url(P + "url", url); // the store connection's rules, failing naming the key
    }
    StoreConnection.checkTimeouts(P, connectTimeout, requestTimeout);
    schemaTimeout = schemaTimeout == null ? DEFAULT_SCHEMA_TIMEOUT : schemaTimeout;
    SettingRules.positive(P + "schema-timeout", schemaTimeout);
    if (requestTimeout != null && schemaTimeout.compareTo(requestTimeout) < 0) {
      throw new IllegalArgumentException(P + "schema-timeout must be at least " + P + "request-timeout ("
          + requestTimeout + "), was " + schemaTimeout);
    }
    indexPrefix = indexPrefix == null || indexPrefix.isBlank() ? null : indexPrefix.trim();
    if (indexPrefix != null) {
      SchemaManager.validPrefix(P + "index-prefix", indexPrefix);
    }
    tls = tls == null ? new Tls(null, null, "PKCS12", null, true) : tls;
  }

  /** A store at {@code url} with every other setting at its default. */
  public static StoreProperties of(String url) {
    return new StoreProperties(url, null, null, StoreConnection.DEFAULT_CONNECT_TIMEOUT,
        StoreConnection.DEFAULT_REQUEST_TIMEOUT, DEFAULT_SCHEMA_TIMEOUT, null, null);
  }

  /** Whether no URL is set: the node then runs an embedded store. */
  public boolean isEmbedded() {
    return url == null;
  }

  /** The connection to the store at {@code storeUrl} (the external one, or the node's embedded one once it runs). */
  public StoreConnection connection(String storeUrl) {
    return StoreConnection.of(P, StoreConnection.url(P + "url", storeUrl), username, password, connectTimeout,
        requestTimeout, tls.storeTls());
  }

  /**
   * The connection with which the node prepares the read model's schema at start: {@link #connection(String)}'s,
   * waiting up to {@code schema-timeout} for each answer.
   */
  public StoreConnection schemaConnection(String storeUrl) {
    return StoreConnection.of(P, StoreConnection.url(P + "url", storeUrl), username, password, connectTimeout,
        schemaTimeout, tls.storeTls());
  }

  /** The connection of the web app and the server on their own: the URL set, else {@link #DEFAULT_URL}. */
  public StoreConnection connection() {
    return connection(url == null ? DEFAULT_URL : url);
  }

  /** The index prefix the web app and the server read: the one set, else {@link #DEFAULT_INDEX_PREFIX}. */
  public String indexPrefixOrDefault() {
    return indexPrefix == null ? DEFAULT_INDEX_PREFIX : indexPrefix;
  }

  @Override
  public String toString() {
    return "StoreProperties[url=" + url + ", username=" + username + ", password=" + Secrets.mask(password)
        + ", connectTimeout=" + connectTimeout + ", requestTimeout=" + requestTimeout + ", schemaTimeout=" + schemaTimeout
        + ", indexPrefix=" + indexPrefix
        + ", tls=" + tls + "]";
  }

  /**
   * TLS to an {@code https} store ({@code flowpipe.store.tls.*}); without a trust store or CA file the JDK's trusted
   * authorities apply.
   *
   * @param trustStore PKCS12 or JKS file with the authorities that signed the store's certificate
   * @param trustStorePassword the trust store's password; never printed
   * @param trustStoreType PKCS12 or JKS
   * @param caCertificate PEM file with the authorities that signed the store's certificate (instead of or besides a
   *     trust store)
   * @param verifyHostname check that the store's certificate names the URL's host; false is unsafe (any certificate
   *     from a trusted authority passes)
   */
  public record Tls(Path trustStore, String trustStorePassword, @DefaultValue("PKCS12") String trustStoreType,
      Path caCertificate, @DefaultValue("true") boolean verifyHostname) {

    public Tls {
      storeTls(trustStore, trustStorePassword, trustStoreType, caCertificate, verifyHostname); // fails naming the key
    }

    /** The validated settings the store connection uses. */
    public StoreTls storeTls() {
      return storeTls(trustStore, trustStorePassword, trustStoreType, caCertificate, verifyHostname);
    }

    private static StoreTls storeTls(Path trustStore, String password, String type, Path ca, boolean verifyHostname) {
      return new StoreTls(P + "tls.", trustStore, password, type, ca, verifyHostname);
    }

    @Override
    public String toString() {
      return storeTls().toString();
    }
  }
}
