package dev.flowpipe.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A read model of schema version 1 (one index per entity, {@code <prefix>-<entity>-v1}), built in a real store from
 * the version-1 mappings kept frozen under {@code flowpipe/schema-v1/} (as commit 908a6be^ had them), with documents
 * written as that version's exporter wrote them: own ids, external version = log position, the position in the
 * document. It talks plain HTTP to the store, so the read model it leaves is independent of the schema code whose
 * migration of it a test checks, and it lists version 1's entities itself: entities added later have no version-1
 * index.
 */
public final class PreviousSchemaReadModel {

  /** The entities of schema version 1, each in an index of its own. */
  public static final List<String> ENTITIES =
      List.of("process-definition", "process-instance", "flow-node-instance", "variable", "incident", "job");

  /** Version 1's dead letters, written beside the entities. */
  public static final String DEAD_LETTER = "dead-letter";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int BULK = 500;

  /** A document as written: its own id, the position it is versioned by, its fields (without the position). */
  public record Document(String id, long position, Map<String, Object> fields) {}

  private PreviousSchemaReadModel() {}

  /** The version-1 index of an entity or of the dead letters. */
  public static String indexName(String prefix, String entity) {
    return prefix + "-" + entity + "-v1";
  }

  /**
   * Creates the version-1 indices in the store at {@code storeUrl} and writes {@code perEntity} documents into each
   * entity's index and two dead letters; returns what it wrote, by entity (in {@link #ENTITIES} order, then
   * {@link #DEAD_LETTER}).
   */
  public static Map<String, List<Document>> write(String storeUrl, String prefix, int perEntity) {
    Map<String, List<Document>> written = new LinkedHashMap<>();
    for (int ordinal = 0; ordinal < ENTITIES.size(); ordinal++) {
      String entity = ENTITIES.get(ordinal);
      String index = indexName(prefix, entity);
      send(storeUrl, "PUT", "/" + index, body(entity), "application/json");
      List<Document> documents = new ArrayList<>();
      for (int i = 1; i <= perEntity; i++) {
        long key = 2251799813685248L + i;
        // positions differ per document, as each document's last record sits elsewhere in the log
        documents.add(new Document(String.valueOf(key), 1000L * i + ordinal, document(entity, key)));
      }
      for (int from = 0; from < documents.size(); from += BULK) {
        bulk(storeUrl, index, documents.subList(from, Math.min(documents.size(), from + BULK)));
      }
      send(storeUrl, "POST", "/" + index + "/_refresh", null, null);
      written.put(entity, documents);
    }
    String deadLetters = indexName(prefix, DEAD_LETTER);
    send(storeUrl, "PUT", "/" + deadLetters, body(DEAD_LETTER), "application/json");
    List<Document> letters = new ArrayList<>();
    for (int i = 1; i <= 2; i++) {
      Map<String, Object> letter = Map.of("targetIndex", indexName(prefix, "variable"),
          "documentId", "dl-" + i, "position", 77L + i, "partitionId", 1, "status", 400,
          "reason", "mapper_parsing_exception: too large", "time", "2026-11-01T10:00:00Z");
      // version 1 wrote dead letters unversioned, under partition and position
      send(storeUrl, "PUT", "/" + deadLetters + "/_doc/1-" + (77 + i), json(letter), "application/json");
      letters.add(new Document("1-" + (77 + i), 77L + i, letter));
    }
    send(storeUrl, "POST", "/" + deadLetters + "/_refresh", null, null);
    written.put(DEAD_LETTER, letters);
    return written;
  }

  private static void bulk(String storeUrl, String index, List<Document> documents) {
    StringBuilder body = new StringBuilder();
    for (Document document : documents) {
      Map<String, Object> action = Map.of("index",
          Map.of("_index", index, "_id", document.id(), "version", document.position(), "version_type", "external"));
      Map<String, Object> source = new LinkedHashMap<>(document.fields());
      source.put("position", document.position());
      body.append(json(action)).append('\n').append(json(source)).append('\n');
    }
    JsonNode answer = read(send(storeUrl, "POST", "/_bulk", body.toString(), "application/x-ndjson"));
    if (answer.path("errors").asBoolean()) {
      throw new IllegalStateException("fixture write into " + index + " failed: " + answer);
    }
  }

  private static String send(String storeUrl, String method, String path, String body, String contentType) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(storeUrl.replaceAll("/+$", "") + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    try {
      HttpResponse<String> answer = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
      if (answer.statusCode() / 100 != 2) {
        throw new IllegalStateException(method + " " + path + " answered " + answer.statusCode() + ": " + answer.body());
      }
      return answer.body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during " + method + " " + path, e);
    }
  }

  private static Map<String, Object> document(String entity, long key) {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("key", key);
    document.put("tenantId", "<default>");
    document.put("partitionId", 1);
    switch (entity) {
      case "variable" -> {
        document.put("name", "order" + key);
        document.put("value", "\"v" + key + "\"");
        document.put("scopeKey", key - 1);
      }
      case "process-definition" -> {
        document.put("bpmnProcessId", "order-process");
        document.put("version", (int) (key % 7) + 1);
      }
      default -> {
        document.put("bpmnProcessId", "order-process");
        document.put("state", key % 2 == 0 ? "ACTIVE" : "COMPLETED");
      }
    }
    return document;
  }

  private static String body(String entity) {
    String resource = "/flowpipe/schema-v1/" + entity + ".json";
    try (InputStream in = PreviousSchemaReadModel.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${refreshInterval}", "1s");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode read(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
