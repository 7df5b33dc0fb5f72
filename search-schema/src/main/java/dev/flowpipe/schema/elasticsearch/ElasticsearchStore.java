package dev.flowpipe.schema.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.TransportException;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;
import co.elastic.clients.transport.rest5_client.low_level.Request;
import co.elastic.clients.transport.rest5_client.low_level.ResponseException;
import co.elastic.clients.transport.rest5_client.low_level.Rest5Client;
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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.http.message.BasicHeader;
import org.apache.hc.core5.util.Timeout;

/**
 * The {@link SearchStore} port on the official Elasticsearch Java client. Same semantics as the OpenSearch adapter:
 * whole documents with external versioning (version = log position), no scripts, so it also works on a bare node.
 */
public final class ElasticsearchStore implements SearchStore {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Rest5Client restClient;
  private final ElasticsearchClient client;
  private final String version;
  private final IndexAdmin admin = new IndexAdmin(this::exchange);

  private ElasticsearchStore(Rest5Client restClient, String version) {
    this.restClient = restClient;
    this.client = new ElasticsearchClient(new Rest5ClientTransport(restClient, new JacksonJsonpMapper(JSON)));
    this.version = version;
  }

  /** Connects; {@code version} is what the store reported on {@code GET /}. */
  public static ElasticsearchStore connect(StoreConnection connection, String version) {
    var builder =
        Rest5Client.builder(connection.url())
            .setRequestConfigCallback(
                config ->
                    config
                        .setConnectTimeout(Timeout.of(connection.connectTimeout().toMillis(), TimeUnit.MILLISECONDS))
                        .setResponseTimeout(
                            Timeout.of(connection.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)));
    if (connection.isHttps()) {
      builder.setConnectionManagerCallback(pool -> pool.setTlsStrategy(StoreTlsStrategy.of(connection.tls())));
    }
    if (connection.hasCredentials()) {
      String token = connection.username() + ":" + (connection.password() == null ? "" : connection.password());
      builder.setDefaultHeaders(
          new Header[] {
            new BasicHeader(
                "Authorization",
                "Basic " + Base64.getEncoder().encodeToString(token.getBytes(StandardCharsets.UTF_8)))
          });
    }
    return new ElasticsearchStore(builder.build(), version);
  }

  @Override
  public StoreProduct product() {
    return StoreProduct.ELASTICSEARCH;
  }

  @Override
  public String version() {
    return version;
  }

  @Override
  public String health() {
    return call("cluster health", () -> client.cluster().health().status().jsonValue().toLowerCase());
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
          Request request = new Request("PUT", "/" + index);
          request.setEntity(new StringEntity(bodyJson, ContentType.APPLICATION_JSON));
          try {
            restClient.performRequest(request);
            return true;
          } catch (ResponseException e) {
            String body = bodyOf(e.getResponse().getEntity());
            if (e.getResponse().getStatusCode() == 400 && body.contains("resource_already_exists_exception")) {
              return false;
            }
            throw new IllegalStateException(
                "creating index " + index + " failed with HTTP " + e.getResponse().getStatusCode() + ": " + body);
          }
        });
  }

  @Override
  public IndexAdmin admin() {
    return admin;
  }

  /** One request through the low-level client; an answer of any status is handed back. */
  private IndexAdmin.Answer exchange(String what, String method, String path, String json) {
    Request request = new Request(method, path);
    if (json != null) {
      request.setEntity(new StringEntity(json, ContentType.APPLICATION_JSON));
    }
    return call(
        what,
        () -> {
          try {
            var response = restClient.performRequest(request);
            return new IndexAdmin.Answer(response.getStatusCode(), bodyOf(response.getEntity()));
          } catch (ResponseException e) {
            return new IndexAdmin.Answer(e.getResponse().getStatusCode(), bodyOf(e.getResponse().getEntity()));
          }
        });
  }

  @Override
  @SuppressWarnings("unchecked")
  public Map<String, Object> mappingMeta(String index) {
    return call(
        "mapping of " + index,
        () -> {
          var response = restClient.performRequest(new Request("GET", "/" + index + "/_mapping"));
          Map<String, Object> byIndex = JSON.readValue(bodyOf(response.getEntity()), Map.class);
          Map<String, Object> entry = (Map<String, Object>) byIndex.values().iterator().next();
          Map<String, Object> mappings = (Map<String, Object>) entry.getOrDefault("mappings", Map.of());
          return (Map<String, Object>) mappings.getOrDefault("_meta", Map.of());
        });
  }

  @Override
  public BulkOutcome bulk(List<DocumentWrite> writes, boolean refresh) {
    if (writes.isEmpty()) {
      return new BulkOutcome(List.of(), List.of(), List.of());
    }
    List<BulkOperation> operations = new ArrayList<>(writes.size());
    for (DocumentWrite write : writes) {
      Map<String, Object> document = new LinkedHashMap<>(write.document());
      document.put("position", write.position());
      operations.add(
          BulkOperation.of(
              op ->
                  op.index(
                      i ->
                          i.index(write.index())
                              .id(ReadModelIndex.storedId(write.index(), write.id()))
                              .version(write.position())
                              .versionType(VersionType.External)
                              .document(ReadModelIndex.storedSource(write.index(), document)))));
    }
    BulkResponse response;
    try {
      response = client.bulk(b -> b.operations(operations).refresh(refresh ? Refresh.True : Refresh.False));
    } catch (ElasticsearchException e) {
      throw classify("bulk of " + writes.size(), e.status(), e);
    } catch (TransportException e) {
      throw classify("bulk of " + writes.size(), e.statusCode(), e);
    } catch (ResponseException e) {
      throw classify("bulk of " + writes.size(), e.getResponse().getStatusCode(), e);
    } catch (IOException e) {
      throw new StoreUnavailableException("bulk of " + writes.size() + " failed: " + e.getMessage(), e);
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
  @SuppressWarnings("unchecked")
  public List<Map<String, Object>> findByField(String index, String field, Object value, int size) {
    FieldValue term =
        switch (value) {
          case Long l -> FieldValue.of(l);
          case Integer i -> FieldValue.of(i.longValue());
          case Boolean b -> FieldValue.of(b);
          case Double d -> FieldValue.of(d);
          default -> FieldValue.of(String.valueOf(value));
        };
    return call(
        "search " + index,
        () -> {
          var response =
              client.search(s -> s.index(index).size(size).query(q -> q.term(t -> t.field(field).value(term))), Map.class);
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

  /** Sends a {@code _search} body through the low-level client; an answer of any status goes to the reader. */
  private <T> T postSearch(SearchJson.Request<T> search) {
    Request request = new Request("POST", search.path());
    SearchJson.parameters().forEach(request::addParameter);
    request.setEntity(new StringEntity(search.body(), ContentType.APPLICATION_JSON));
    return call(
        search.what(),
        () -> {
          try {
            var response = restClient.performRequest(request);
            return search.reader().read(response.getStatusCode(), bodyOf(response.getEntity()));
          } catch (ResponseException e) {
            return search.reader().read(e.getResponse().getStatusCode(), bodyOf(e.getResponse().getEntity()));
          }
        });
  }

  @Override
  public Optional<Set<String>> runningTasks(String actions) {
    return call(
        "list tasks " + actions,
        () -> {
          try {
            var response = restClient.performRequest(new Request("GET", RunningTasks.path(actions)));
            return RunningTasks.read(actions, response.getStatusCode(), bodyOf(response.getEntity()));
          } catch (ResponseException e) {
            return RunningTasks.read(actions, e.getResponse().getStatusCode(), bodyOf(e.getResponse().getEntity()));
          }
        });
  }

  @Override
  public long count(String index) {
    return call("count " + index, () -> client.count(c -> c.index(index)).count());
  }

  @Override
  @SuppressWarnings("unchecked")
  public List<Map<String, Object>> all(String index, int max) {
    return call(
        "read all of " + index,
        () -> {
          var response =
              client.search(
                  s -> s.index(index).size(max).query(q -> q.matchAll(m -> m))
                      .sort(o -> o.field(f -> f.field("key").order(SortOrder.Asc))),
                  Map.class);
          List<Map<String, Object>> documents = new ArrayList<>();
          response.hits().hits().forEach(hit -> documents.add(ReadModelIndex.callerSource(index, (Map<String, Object>) hit.source())));
          return documents;
        });
  }

  private static String bodyOf(org.apache.hc.core5.http.HttpEntity entity) throws IOException {
    try {
      return entity == null ? "" : EntityUtils.toString(entity);
    } catch (org.apache.hc.core5.http.ParseException e) {
      throw new IOException("unreadable answer: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    try {
      restClient.close();
    } catch (IOException e) {
      // nothing left to release
    }
  }

  private static RuntimeException classify(String what, int status, Exception e) {
    if (status == 413) {
      return new RequestTooLargeException(what + " refused as too large (HTTP 413)", e);
    }
    if (status == 429 || status >= 500 || status <= 0) {
      return new StoreUnavailableException(what + " failed: " + e.getMessage(), e);
    }
    return new StoreRefusedException(what + " refused with HTTP " + status + ": " + e.getMessage(), status, e);
  }

  @FunctionalInterface
  private interface StoreCall<T> {
    T run() throws IOException;
  }

  private <T> T call(String what, StoreCall<T> call) {
    try {
      return call.run();
    } catch (ElasticsearchException e) {
      throw classify(what, e.status(), e);
    } catch (TransportException e) {
      throw classify(what, e.statusCode(), e);
    } catch (ResponseException e) {
      throw classify(what, e.getResponse().getStatusCode(), e);
    } catch (IOException e) {
      throw new StoreUnavailableException(what + " failed: " + e.getMessage(), e);
    }
  }
}
