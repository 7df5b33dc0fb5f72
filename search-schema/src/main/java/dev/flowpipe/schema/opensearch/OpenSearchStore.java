package dev.flowpipe.schema.opensearch;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchJson;
import dev.flowpipe.schema.query.ValueCountQuery;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.IndexAdmin;
import dev.flowpipe.schema.store.RequestTooLargeException;
import dev.flowpipe.schema.store.RunningTasks;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.schema.store.StoreTlsStrategy;
import dev.flowpipe.schema.store.StoreProduct;
import dev.flowpipe.schema.store.StoreRefusedException;
import dev.flowpipe.schema.store.StoreUnavailableException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.auth.AuthScope;
import org.apache.hc.client5.http.auth.UsernamePasswordCredentials;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.auth.BasicCredentialsProvider;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.util.Timeout;
import org.opensearch.client.json.jackson.JacksonJsonpMapper;
import org.opensearch.client.opensearch.OpenSearchClient;
import org.opensearch.client.opensearch._types.FieldValue;
import org.opensearch.client.opensearch._types.OpenSearchException;
import org.opensearch.client.opensearch._types.Refresh;
import org.opensearch.client.opensearch._types.VersionType;
import org.opensearch.client.opensearch.core.BulkResponse;
import org.opensearch.client.opensearch.core.bulk.BulkOperation;
import org.opensearch.client.opensearch.core.bulk.BulkResponseItem;
import org.opensearch.client.opensearch.generic.Body;
import org.opensearch.client.opensearch.generic.Requests;
import org.opensearch.client.opensearch.generic.Response;
import org.opensearch.client.transport.TransportException;
import org.opensearch.client.transport.httpclient5.ApacheHttpClient5Transport;
import org.opensearch.client.transport.httpclient5.ApacheHttpClient5TransportBuilder;
import org.opensearch.client.transport.httpclient5.ResponseException;

/** The {@link SearchStore} port on the official OpenSearch Java client. */
public final class OpenSearchStore implements SearchStore {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ApacheHttpClient5Transport transport;
  private final OpenSearchClient client;
  private final String version;
  private final IndexAdmin admin = new IndexAdmin(this::exchange);

  private OpenSearchStore(ApacheHttpClient5Transport transport, String version) {
    this.transport = transport;
    this.client = new OpenSearchClient(transport);
    this.version = version;
  }

  /** Connects; {@code version} is what the store reported on {@code GET /}. */
  public static OpenSearchStore connect(StoreConnection connection, String version) {
    HttpHost host = new HttpHost(connection.url().getScheme(), connection.url().getHost(), connection.port());
    ApacheHttpClient5TransportBuilder builder =
        ApacheHttpClient5TransportBuilder.builder(host).setMapper(new JacksonJsonpMapper(JSON));
    String path = connection.url().getPath();
    if (path != null && !path.isBlank() && !"/".equals(path)) {
      builder.setPathPrefix(path);
    }
    builder.setRequestConfigCallback(
        config ->
            config
                .setConnectTimeout(Timeout.of(connection.connectTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .setResponseTimeout(Timeout.of(connection.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)));
    if (connection.hasCredentials() || connection.isHttps()) {
      builder.setHttpClientConfigCallback(
          http -> {
            if (connection.isHttps()) {
              // replaces the transport's default pool, which trusts only the JDK's authorities
              http.setConnectionManager(
                  PoolingAsyncClientConnectionManagerBuilder.create()
                      .setMaxConnPerRoute(10)
                      .setMaxConnTotal(30)
                      .setDefaultConnectionConfig(
                          ConnectionConfig.custom()
                              .setConnectTimeout(Timeout.of(connection.connectTimeout()))
                              .setSocketTimeout(Timeout.of(connection.requestTimeout()))
                              .build())
                      .setTlsStrategy(StoreTlsStrategy.of(connection.tls()))
                      .build());
            }
            if (connection.hasCredentials()) {
              BasicCredentialsProvider credentials = new BasicCredentialsProvider();
              credentials.setCredentials(
                  new AuthScope(host),
                  new UsernamePasswordCredentials(
                      connection.username(),
                      connection.password() == null ? new char[0] : connection.password().toCharArray()));
              http.setDefaultCredentialsProvider(credentials);
            }
            return http;
          });
    }
    return new OpenSearchStore(builder.build(), version);
  }

  @Override
  public StoreProduct product() {
    return StoreProduct.OPENSEARCH;
  }

  @Override
  public String version() {
    return version;
  }

  @Override
  public String health() {
    return call("cluster health", () -> client.cluster().health().status().jsonValue());
  }

  @Override
  public boolean indexExists(String index) {
    return call("exists " + index, () -> client.indices().exists(e -> e.index(index)).value());
  }

  @Override
  public boolean createIndex(String index, String bodyJson) {
    return call(
        "create index " + index,
        () -> {
          try (Response response =
              client.generic().execute(Requests.builder().method("PUT").endpoint("/" + index).json(bodyJson).build())) {
            if (response.getStatus() == 200) {
              return true;
            }
            String body = response.getBody().map(Body::bodyAsString).orElse("");
            if (response.getStatus() == 400 && body.contains("resource_already_exists_exception")) {
              return false;
            }
            throw new IllegalStateException(
                "creating index " + index + " failed with HTTP " + response.getStatus() + ": " + body);
          }
        });
  }

  @Override
  public IndexAdmin admin() {
    return admin;
  }

  /** One request through the generic client, which hands back every status. */
  private IndexAdmin.Answer exchange(String what, String method, String path, String json) {
    return call(
        what,
        () -> {
          var request = Requests.builder().method(method).endpoint(path);
          if (json != null) {
            request.json(json);
          }
          try (Response response = client.generic().execute(request.build())) {
            return new IndexAdmin.Answer(response.getStatus(), response.getBody().map(Body::bodyAsString).orElse(""));
          }
        });
  }

  @Override
  @SuppressWarnings("unchecked")
  public Map<String, Object> mappingMeta(String index) {
    return call(
        "mapping of " + index,
        () -> {
          try (Response response =
              client.generic().execute(Requests.builder().method("GET").endpoint("/" + index + "/_mapping").build())) {
            String body = response.getBody().map(Body::bodyAsString).orElse("{}");
            if (response.getStatus() != 200) {
              throw new IllegalStateException(
                  "reading the mapping of " + index + " failed with HTTP " + response.getStatus() + ": " + body);
            }
            Map<String, Object> byIndex = JSON.readValue(body, Map.class);
            Map<String, Object> entry = (Map<String, Object>) byIndex.values().iterator().next();
            Map<String, Object> mappings = (Map<String, Object>) entry.getOrDefault("mappings", Map.of());
            return (Map<String, Object>) mappings.getOrDefault("_meta", Map.of());
          }
        });
  }

  @Override
  public BulkOutcome bulk(List<DocumentWrite> writes, boolean refresh) {
    if (writes.isEmpty()) {
      return new BulkOutcome(List.of(), List.of(), List.of());
    }
    List<BulkOperation> operations = new ArrayList<>(writes.size());
    for (DocumentWrite write : writes) {
      operations.add(
          BulkOperation.of(
              op ->
                  op.index(
                      i ->
                          i.index(write.index())
                              .id(ReadModelIndex.storedId(write.index(), write.id()))
                              .version(write.position())
                              .versionType(VersionType.External)
                              .document(ReadModelIndex.storedSource(write.index(), withPosition(write.document(), write.position()))))));
    }
    BulkResponse response;
    try {
      response = client.bulk(b -> b.operations(operations).refresh(refresh ? Refresh.True : Refresh.False));
    } catch (OpenSearchException e) {
      throw classify("bulk of " + writes.size(), e);
    } catch (TransportException e) {
      throw transportFailure("bulk of " + writes.size(), e);
    } catch (ResponseException e) {
      if (e.status() == 413) {
        throw new RequestTooLargeException("bulk of " + writes.size() + " refused as too large (HTTP 413)", e);
      }
      if (e.status() >= 400 && e.status() < 500 && e.status() != 429) {
        throw new StoreRefusedException(
            "bulk of " + writes.size() + " refused with HTTP " + e.status() + ": " + e.getMessage(), e.status(), e);
      }
      throw new StoreUnavailableException("bulk of " + writes.size() + " failed: " + e.getMessage(), e);
    } catch (IOException e) {
      throw transportFailure("bulk of " + writes.size(), e);
    }
    BulkOutcome.Collector outcome = new BulkOutcome.Collector();
    List<BulkResponseItem> items = response.items();
    for (int i = 0; i < items.size(); i++) {
      BulkResponseItem item = items.get(i);
      outcome.item(
          writes.get(i), item.status(), item.error() == null ? null : item.error().type() + ": " + item.error().reason());
    }
    return outcome.outcome();
  }

  private static Map<String, Object> withPosition(Map<String, Object> document, long position) {
    Map<String, Object> copy = new LinkedHashMap<>(document);
    copy.put("position", position);
    return copy;
  }

  @Override
  @SuppressWarnings("unchecked")
  public Map<String, Map<String, Object>> getAll(String index, List<String> ids) {
    if (ids.isEmpty()) {
      return Map.of();
    }
    return call(
        "get " + ids.size() + " from " + index,
        () -> {
          var response = client.mget(m -> m.index(index).ids(ReadModelIndex.storedIds(index, ids)), Map.class);
          Map<String, Map<String, Object>> found = new LinkedHashMap<>();
          for (var doc : response.docs()) {
            if (doc.isResult() && doc.result().found()) {
              found.put(
                  ReadModelIndex.callerId(index, doc.result().id()),
                  ReadModelIndex.callerSource(index, (Map<String, Object>) doc.result().source()));
            }
          }
          return found;
        });
  }

  @Override
  public void put(String index, String id, Map<String, Object> document) {
    call("put " + index + "/" + id,
        () -> client.index(i -> i.index(index).id(ReadModelIndex.storedId(index, id)).document(document)));
  }

  @Override
  public void refresh(String index) {
    call("refresh " + index, () -> client.indices().refresh(r -> r.index(index)));
  }

  @Override
  @SuppressWarnings("unchecked")
  public Optional<Map<String, Object>> get(String index, String id) {
    return call(
        "get " + index + "/" + id,
        () -> {
          var response = client.get(g -> g.index(index).id(ReadModelIndex.storedId(index, id)), Map.class);
          return response.found() ? Optional.of(ReadModelIndex.callerSource(index, (Map<String, Object>) response.source())) : Optional.empty();
        });
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public List<Map<String, Object>> findByField(String index, String field, Object value, int size) {
    return call(
        "search " + index,
        () -> {
          var response =
              client.search(
                  s -> s.index(index).size(size).query(q -> q.term(t -> t.field(field).value(fieldValue(value)))),
                  Map.class);
          List<Map<String, Object>> documents = new ArrayList<>();
          response.hits().hits().forEach(hit -> documents.add(ReadModelIndex.callerSource(index, (Map<String, Object>) hit.source())));
          return documents;
        });
  }

  private static FieldValue fieldValue(Object value) {
    return switch (value) {
      case Long l -> FieldValue.of(l);
      case Integer i -> FieldValue.of(i.longValue());
      case Boolean b -> FieldValue.of(b);
      case Double d -> FieldValue.of(d);
      default -> FieldValue.of(String.valueOf(value));
    };
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public List<Map<String, Object>> all(String index, int max) {
    return call(
        "read all of " + index,
        () -> {
          var response =
              client.search(
                  s -> s.index(index).size(max).query(q -> q.matchAll(m -> m))
                      .sort(o -> o.field(f -> f.field("key").order(org.opensearch.client.opensearch._types.SortOrder.Asc))),
                  Map.class);
          List<Map<String, Object>> documents = new ArrayList<>();
          response.hits().hits().forEach(hit -> documents.add(ReadModelIndex.callerSource(index, (Map<String, Object>) hit.source())));
          return documents;
        });
  }

  @Override
  public SearchHits search(SearchQuery query) {
    return postSearch(SearchJson.request(query));
  }

  @Override
  public List<ValueCountQuery.ValueCount> countByValue(ValueCountQuery query) {
    return postSearch(SearchJson.request(query));
  }

  /** Sends a {@code _search} body through the generic client, which hands back every status for the reader. */
  private <T> T postSearch(SearchJson.Request<T> request) {
    return call(
        request.what(),
        () -> {
          try (Response response =
              client.generic().execute(
                  Requests.builder().method("POST").endpoint(request.path()).query(SearchJson.parameters())
                      .json(request.body()).build())) {
            return request.reader().read(
                response.getStatus(), response.getBody().map(Body::bodyAsString).orElse("{}"));
          }
        });
  }

  @Override
  public Optional<Set<String>> runningTasks(String actions) {
    return call(
        "list tasks " + actions,
        () -> {
          try (Response response =
              client.generic().execute(Requests.builder().method("GET").endpoint(RunningTasks.path(actions)).build())) {
            return RunningTasks.read(actions, response.getStatus(),
                response.getBody().map(Body::bodyAsString).orElse("{}"));
          }
        });
  }

  @Override
  public long count(String index) {
    return call("count " + index, () -> client.count(c -> c.index(index)).count());
  }

  @Override
  public void close() {
    try {
      transport.close();
    } catch (IOException e) {
      // nothing left to release
    }
  }

  @FunctionalInterface
  private interface StoreCall<T> {
    T run() throws IOException;
  }

  private static RuntimeException classify(String what, OpenSearchException e) {
    if (e.status() == 413) {
      return new RequestTooLargeException(what + " refused as too large: " + e.getMessage(), e);
    }
    if (e.status() == 429 || e.status() >= 500) {
      return new StoreUnavailableException(what + " failed: " + e.getMessage(), e);
    }
    return new StoreRefusedException(what + " refused with HTTP " + e.status() + ": " + e.getMessage(), e.status(), e);
  }

  /**
   * The client's transport answers 401 and 403 with a {@link TransportException} ("Forbidden access") whose cause is
   * the store's response, and hands it on wrapped in a plain {@link IOException}: a refusal of the whole request (a user
   * without the rights, a read-only cluster), named with the store's own error; anything else failed on the way.
   */
  private static RuntimeException transportFailure(String what, IOException e) {
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof ResponseException response && (response.status() == 401 || response.status() == 403)) {
        return new StoreRefusedException(what + " refused with HTTP " + response.status() + ": "
            + response.getMessage(), response.status(), response);
      }
    }
    return new StoreUnavailableException(what + " failed: " + e.getMessage(), e);
  }

  private <T> T call(String what, StoreCall<T> call) {
    try {
      return call.run();
    } catch (OpenSearchException e) {
      throw classify(what, e);
    } catch (TransportException e) {
      throw transportFailure(what, e);
    } catch (ResponseException e) {
      if (e.status() == 413) {
        throw new RequestTooLargeException(what + " refused as too large (HTTP 413)", e);
      }
      throw new StoreUnavailableException(what + " failed: " + e.getMessage(), e);
    } catch (IOException e) {
      throw transportFailure(what, e);
    }
  }

}
