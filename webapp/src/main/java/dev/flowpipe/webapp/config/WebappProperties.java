package dev.flowpipe.webapp.config;

import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationStyle;

/**
 * Everything the web app reads from YAML, under {@code flowpipe.webapp}. Each group validates itself when bound, so a
 * bad value stops start-up with a message naming the key and the value.
 *
 * @param search paging limits of the search API
 * @param consistency read-your-writes waiting
 * @param security HTTP basic authentication
 * @param ui the browser UI
 * @param store the store to read when the web app runs on its own (inside the node it reads the node's store)
 */
@ConfigurationProperties("flowpipe.webapp")
public record WebappProperties(
    @DefaultValue Search search,
    @DefaultValue Consistency consistency,
    @DefaultValue Security security,
    @DefaultValue Ui ui,
    @DefaultValue Store store) {

  private static final String P = "flowpipe.webapp.";

  /**
   * Paging limits ({@code flowpipe.webapp.search.*}).
   *
   * @param defaultPageSize items per page when a request gives no {@code page.limit}
   * @param maxPageSize the largest {@code page.limit} a request may ask for
   */
  public record Search(@DefaultValue("100") int defaultPageSize, @DefaultValue("1000") int maxPageSize) {
    public Search {
      if (maxPageSize < 1 || maxPageSize > 10_000) {
        throw new IllegalArgumentException(P + "search.max-page-size must be 1 to 10000, was " + maxPageSize);
      }
      if (defaultPageSize < 1 || defaultPageSize > maxPageSize) {
        throw new IllegalArgumentException(
            P + "search.default-page-size must be 1 to max-page-size (" + maxPageSize + "), was " + defaultPageSize);
      }
    }
  }

  /**
   * Read-your-writes ({@code flowpipe.webapp.consistency.*}).
   *
   * @param defaultTimeout how long a consistency request waits when it names no {@code timeout}
   * @param maxTimeout the longest wait a request may ask for; longer asks are cut to this
   * @param pollInterval how often a waiting request looks at the store again
   */
  public record Consistency(
      @DefaultValue("5s") Duration defaultTimeout,
      @DefaultValue("30s") Duration maxTimeout,
      @DefaultValue("20ms") Duration pollInterval) {
    public Consistency {
      positive(P + "consistency.default-timeout", defaultTimeout);
      positive(P + "consistency.max-timeout", maxTimeout);
      positive(P + "consistency.poll-interval", pollInterval);
      if (defaultTimeout.compareTo(maxTimeout) > 0) {
        throw new IllegalArgumentException(
            P + "consistency.default-timeout must be <= max-timeout (" + print(maxTimeout) + "), was "
                + print(defaultTimeout));
      }
    }
  }

  /**
   * HTTP basic authentication ({@code flowpipe.webapp.security.*}); off by default (the app binds to loopback).
   *
   * @param basicAuth require a user name and password for the UI and the API
   * @param username the one user
   * @param password its password, plain or in Spring Security's {@code {id}hash} form; never printed
   */
  public record Security(@DefaultValue("false") boolean basicAuth, String username, String password) {
    public Security {
      if (basicAuth && (username == null || username.isBlank())) {
        throw new IllegalArgumentException(
            P + "security.username must be set when basic-auth is on, was '" + username + "'");
      }
      if (basicAuth && (password == null || password.isEmpty())) {
        throw new IllegalArgumentException(P + "security.password must be set when basic-auth is on, was empty");
      }
    }

    @Override
    public String toString() {
      return "Security[basicAuth=" + basicAuth + ", username=" + username + ", password="
          + (password == null ? null : "****") + "]";
    }
  }

  /**
   * The browser UI ({@code flowpipe.webapp.ui.*}).
   *
   * @param refreshInterval how often open lists and pages reload themselves
   */
  public record Ui(@DefaultValue("3s") Duration refreshInterval) {
    public Ui {
      positive(P + "ui.refresh-interval", refreshInterval);
    }
  }

  /**
   * The store read by the web app on its own ({@code flowpipe.webapp.store.*}); ignored inside the node.
   *
   * @param url OpenSearch or Elasticsearch 9 URL, e.g. {@code http://127.0.0.1:9200}
   * @param username basic-auth user for the store, optional
   * @param password basic-auth password for the store, optional; never printed
   * @param connectTimeout how long to wait for a connection to the store
   * @param requestTimeout how long to wait for one answer from the store
   * @param indexPrefix the read model's index prefix (the exporter's {@code index-prefix})
   */
  public record Store(
      @DefaultValue("http://127.0.0.1:9200") URI url,
      String username,
      String password,
      @DefaultValue("5s") Duration connectTimeout,
      @DefaultValue("30s") Duration requestTimeout,
      @DefaultValue("flowpipe") String indexPrefix) {
    public Store {
      if (url == null
          || !("http".equals(url.getScheme()) || "https".equals(url.getScheme()))
          || url.getHost() == null) {
        throw new IllegalArgumentException(P + "store.url must be http(s)://host[:port], was '" + url + "'");
      }
      positive(P + "store.connect-timeout", connectTimeout);
      positive(P + "store.request-timeout", requestTimeout);
      if (indexPrefix == null || !indexPrefix.matches("[a-z0-9][a-z0-9_.-]*")) {
        throw new IllegalArgumentException(
            P + "store.index-prefix must be lowercase letters, digits, '-', '_' or '.', was '" + indexPrefix + "'");
      }
    }

    @Override
    public String toString() {
      return "Store[url=" + url + ", username=" + username + ", password=" + (password == null ? null : "****")
          + ", connectTimeout=" + connectTimeout + ", requestTimeout=" + requestTimeout + ", indexPrefix="
          + indexPrefix + "]";
    }
  }

  private static void positive(String key, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(key + " must be a positive duration, was " + print(value));
    }
  }

  private static String print(Duration value) {
    return value == null ? null : DurationStyle.SIMPLE.print(value);
  }
}
