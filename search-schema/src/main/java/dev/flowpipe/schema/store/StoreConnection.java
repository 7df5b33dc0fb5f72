package dev.flowpipe.schema.store;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;

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

  /** How long to wait for a TCP connection when nothing is configured: the one place of this default. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** How long to wait for an answer to one request when nothing is configured: the one place of this default. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** A connection trusting the JDK's authorities. */
  public StoreConnection(URI url, String username, String password, Duration connectTimeout, Duration requestTimeout) {
    this(url, username, password, connectTimeout, requestTimeout, null);
  }

  public StoreConnection {
    Objects.requireNonNull(url, "url");
    if (!"http".equals(url.getScheme()) && !"https".equals(url.getScheme())) {
      throw new IllegalArgumentException("store url must start with http:// or https://, was " + url);
    }
    if (url.getHost() == null) {
      throw new IllegalArgumentException("store url has no host: " + url);
    }
    if (username != null && username.isBlank()) {
      username = null;
    }
    connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
    requestTimeout = requestTimeout == null ? DEFAULT_REQUEST_TIMEOUT : requestTimeout;
    tls = tls == null ? StoreTls.DEFAULT : tls;
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
    return "StoreConnection[url=" + url + ", username=" + username + ", password=" + Secrets.masked(password)
        + ", connectTimeout=" + connectTimeout + ", requestTimeout=" + requestTimeout + ", tls=" + tls + "]";
  }
}
