package dev.flowpipe.schema.store;

import dev.flowpipe.settings.Secrets;
import dev.flowpipe.settings.SettingRules;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * Where the search store is and how to reach it. Kept apart from how the read model is configured, so tests and the
 * node can hand in whatever store they run.
 *
 * @param url base URL, {@code http} or {@code https}, for example {@code http://127.0.0.1:9200}
 * @param username basic-auth user, or null for none
 * @param password basic-auth password, or null; never printed
 * @param connectTimeout how long to wait for a TCP connection; null for {@link #DEFAULT_CONNECT_TIMEOUT}
 * @param requestTimeout how long to wait for an answer to one request; null for {@link #DEFAULT_REQUEST_TIMEOUT}
 * @param tls which certificates an {@code https} store may present; null for the JDK's trusted authorities
 */
public record StoreConnection(
    URI url, String username, String password, Duration connectTimeout, Duration requestTimeout, StoreTls tls) {

  /**
   * The default connect timeout, in seconds: the one place it is written. The node's and the web app's settings take
   * theirs from it ({@code @DefaultValue(DEFAULT_CONNECT_TIMEOUT_SECONDS + "s")}), and so does a connection given none.
   */
  public static final int DEFAULT_CONNECT_TIMEOUT_SECONDS = 5;

  /** The default request timeout, in seconds: the one place it is written (see the connect timeout). */
  public static final int DEFAULT_REQUEST_TIMEOUT_SECONDS = 30;

  /** {@link #DEFAULT_CONNECT_TIMEOUT_SECONDS} as a duration. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(DEFAULT_CONNECT_TIMEOUT_SECONDS);

  /** {@link #DEFAULT_REQUEST_TIMEOUT_SECONDS} as a duration. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(DEFAULT_REQUEST_TIMEOUT_SECONDS);

  /** A connection trusting the JDK's authorities. */
  public StoreConnection(URI url, String username, String password, Duration connectTimeout, Duration requestTimeout) {
    this(url, username, password, connectTimeout, requestTimeout, null);
  }

  public StoreConnection {
    checkUrl("store url", url);
    if (username != null && username.isBlank()) {
      username = null;
    }
    connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
    requestTimeout = requestTimeout == null ? DEFAULT_REQUEST_TIMEOUT : requestTimeout;
    tls = tls == null ? StoreTls.DEFAULT : tls;
  }

  /**
   * The connection that settings under {@code keyPrefix} (e.g. {@code flowpipe.store.}) describe: the rules of
   * a store connection checked here once, for every place that reads one, failing with the full key and the value.
   */
  public static StoreConnection of(String keyPrefix, URI url, String username, String password,
      Duration connectTimeout, Duration requestTimeout, StoreTls tls) {
    checkUrl(keyPrefix + "url", url);
    checkTimeouts(keyPrefix, connectTimeout, requestTimeout);
    return new StoreConnection(url, username, password, connectTimeout, requestTimeout, tls);
  }

  /** A store URL from its text under {@code key}: {@code http(s)://host[:port]}, or a message naming key and value. */
  public static URI url(String key, String text) {
    URI url;
    try {
      url = new URI(text == null ? "" : text.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(key + " is not a URL, was '" + text + "': " + e.getMessage(), e);
    }
    checkUrl(key, url);
    return url;
  }

  private static void checkUrl(String key, URI url) {
    if (url == null || !("http".equals(url.getScheme()) || "https".equals(url.getScheme())) || url.getHost() == null) {
      throw new IllegalArgumentException(key + " must be http(s)://host[:port], was '" + url + "'");
    }
  }

  /** The timeouts of settings under {@code keyPrefix}, each a positive duration (null: the default applies). */
  public static void checkTimeouts(String keyPrefix, Duration connectTimeout, Duration requestTimeout) {
    if (connectTimeout != null) {
      SettingRules.positive(keyPrefix + "connect-timeout", connectTimeout);
    }
    if (requestTimeout != null) {
      SettingRules.positive(keyPrefix + "request-timeout", requestTimeout);
    }
  }

  public boolean isHttps() {
    return "https".equals(url.getScheme());
  }

  public static StoreConnection of(String url) {
    return new StoreConnection(URI.create(url), null, null, null, null);
  }

  public boolean hasCredentials() {
    return username != null;
  }

  /** The {@code Authorization} header's value for basic authentication, or null without credentials. */
  public String basicAuthorization() {
    if (!hasCredentials()) {
      return null;
    }
    String token = username + ":" + (password == null ? "" : password);
    return "Basic " + Base64.getEncoder().encodeToString(token.getBytes(StandardCharsets.UTF_8));
  }

  public int port() {
    if (url.getPort() > 0) {
      return url.getPort();
    }
    return "https".equals(url.getScheme()) ? 443 : 80;
  }

  @Override
  public String toString() {
    return "StoreConnection[url=" + url + ", username=" + username + ", password=" + Secrets.mask(password)
        + ", connectTimeout=" + connectTimeout + ", requestTimeout=" + requestTimeout + ", tls=" + tls + "]";
  }
}
