package dev.flowpipe.schema.rest;

import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.schema.store.StoreTlsStrategy;
import dev.flowpipe.schema.store.StoreUnavailableException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.config.TlsConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.Timeout;

/**
 * The store transport on Apache HttpClient 5 (its asynchronous client, which reads an answer that comes before the
 * whole request is sent, as a store's 413 does): the connection pool, TLS ({@link StoreTlsStrategy}), basic
 * authentication and timeouts of a {@link StoreConnection}, all in this one place.
 */
public final class HttpStoreTransport implements StoreTransport {

  // what each of the two former client libraries used by default
  private static final int MAX_CONNECTIONS_PER_ROUTE = 10;
  private static final int MAX_CONNECTIONS = 30;

  private final StoreConnection connection;
  private final String baseUrl;
  private final String authorization;
  private final CloseableHttpAsyncClient client;

  private HttpStoreTransport(StoreConnection connection, CloseableHttpAsyncClient client) {
    this.connection = connection;
    String url = connection.url().toString();
    this.baseUrl = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    this.authorization = connection.basicAuthorization();
    this.client = client;
  }

  /** Opens a pool of connections to the store (none is made before the first request). */
  public static HttpStoreTransport open(StoreConnection connection) {
    PoolingAsyncClientConnectionManagerBuilder pool =
        PoolingAsyncClientConnectionManagerBuilder.create()
            .setMaxConnPerRoute(MAX_CONNECTIONS_PER_ROUTE)
            .setMaxConnTotal(MAX_CONNECTIONS)
            .setDefaultConnectionConfig(
                ConnectionConfig.custom()
                    .setConnectTimeout(Timeout.of(connection.connectTimeout()))
                    .setSocketTimeout(Timeout.of(connection.requestTimeout()))
                    .build())
            // both stores speak HTTP/1.1; no protocol negotiation to go wrong behind a proxy
            .setDefaultTlsConfig(TlsConfig.custom().setVersionPolicy(HttpVersionPolicy.FORCE_HTTP_1).build());
    if (connection.isHttps()) {
      pool.setTlsStrategy(StoreTlsStrategy.of(connection.tls()));
    }
    CloseableHttpAsyncClient client =
        HttpAsyncClients.custom()
            .setConnectionManager(pool.build())
            .setDefaultRequestConfig(
                RequestConfig.custom()
                    .setResponseTimeout(Timeout.of(connection.requestTimeout()))
                    // a pool kept busy by other requests counts as a store that does not answer in time
                    .setConnectionRequestTimeout(Timeout.of(connection.requestTimeout()))
                    .build())
            .disableRedirectHandling()
            .disableAutomaticRetries()
            .build();
    client.start();
    return new HttpStoreTransport(connection, client);
  }

  @Override
  public StoreAnswer send(StoreRequest request) {
    SimpleRequestBuilder builder = SimpleRequestBuilder.create(request.method()).setUri(uri(request));
    if (request.body() != null) {
      builder.setBody(request.body(), ContentType.parse(request.contentType()).withCharset(StandardCharsets.UTF_8));
    }
    if (authorization != null) {
      // sent with every request rather than after a challenge: one round trip, the same for every store
      builder.addHeader("Authorization", authorization);
    }
    SimpleHttpRequest httpRequest = builder.build();
    Future<SimpleHttpResponse> answer = client.execute(httpRequest, null);
    try {
      SimpleHttpResponse response = answer.get();
      Map<String, String> headers = new LinkedHashMap<>();
      for (Header header : response.getHeaders()) {
        headers.putIfAbsent(header.getName().toLowerCase(Locale.ROOT), header.getValue());
      }
      return new StoreAnswer(response.getCode(), headers, response.getBodyBytes());
    } catch (ExecutionException e) {
      throw unavailable(e.getCause() == null ? e : e.getCause());
    } catch (CancellationException e) {
      throw new StoreUnavailableException("request to " + connection.url() + " cancelled (transport closed)", e);
    } catch (InterruptedException e) {
      answer.cancel(true);
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted while waiting for " + connection.url(), e);
    }
  }

  private URI uri(StoreRequest request) {
    StringBuilder uri = new StringBuilder(baseUrl).append(request.path());
    if (!request.parameters().isEmpty()) {
      StringJoiner query = new StringJoiner("&");
      request.parameters().forEach((name, value) ->
          query.add(URLEncoder.encode(name, StandardCharsets.UTF_8) + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8)));
      uri.append(request.path().contains("?") ? '&' : '?').append(query);
    }
    return URI.create(uri.toString());
  }

  private StoreUnavailableException unavailable(Throwable cause) {
    String store = "search store at " + connection.url();
    return switch (cause) {
      case ConnectException e -> new StoreUnavailableException(store + " is unreachable: connection refused", e);
      case SSLException e -> new StoreUnavailableException(store + " failed the TLS handshake: " + e.getMessage()
          + " (if its certificate is not trusted, " + connection.tls().trustHint()
          + "; if it names another host, use that host in the URL)", e);
      case SocketTimeoutException e -> new StoreUnavailableException(store + " is unreachable: no answer within "
          + connection.requestTimeout() + " (" + e.getMessage() + ")", e);
      case TimeoutException e -> new StoreUnavailableException(store + " is unreachable: " + e.getMessage(), e);
      case IOException e -> new StoreUnavailableException(store + " is unreachable: " + e, e);
      default -> new StoreUnavailableException(store + " failed: " + cause, cause);
    };
  }

  @Override
  public void close() {
    client.close(CloseMode.GRACEFUL);
  }
}
