package dev.flowpipe.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.webapp.query.ApiField;
import dev.flowpipe.webapp.query.Entity;
import dev.flowpipe.webapp.query.FieldType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The read model as one node's web app serves it: every item of an entity, paged through {@code POST
 * /v2/<entity>/search} with cursors, mapped back to the read model's field names by the API's own field mapping
 * ({@link Entity}), keys as numbers again; a truncated variable's full value from {@code GET /v2/variables/<key>}.
 * Only the fields the API serves are there.
 */
public final class WebAppReadModel implements ReadModelSource {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PAGE = 1000;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI base;

  public WebAppReadModel(int httpPort) {
    this.base = URI.create("http://127.0.0.1:" + httpPort);
  }

  /** The API's entity of a read-model index. */
  public static Entity entity(ReadModelIndex index) {
    return Arrays.stream(Entity.values()).filter(e -> e.index() == index).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("the web app serves no entity of " + index.entity()));
  }

  @Override
  public void forEach(ReadModelIndex index, Consumer<Map<String, Object>> each) {
    Entity entity = entity(index);
    String after = null;
    while (true) {
      ObjectNode request = JSON.createObjectNode();
      ObjectNode page = request.putObject("page").put("limit", PAGE);
      if (after != null) {
        page.put("after", after);
      }
      JsonNode answer = send(HttpRequest.newBuilder(base.resolve("/v2/" + entity.path() + "/search"))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(request.toString())));
      for (JsonNode item : answer.path("items")) {
        Map<String, Object> document = document(entity, item);
        if (entity == Entity.VARIABLES && Boolean.TRUE.equals(document.get("truncated"))) {
          document.put("fullValue", send(HttpRequest.newBuilder(base.resolve("/v2/variables/"
              + item.path("variableKey").asText())).GET()).path("value").asText());
        }
        each.accept(document);
      }
      if (answer.path("items").size() < PAGE) {
        return;
      }
      after = answer.path("page").path("endCursor").asText();
    }
  }

  /**
   * An item with the read model's field names, keys as numbers (the API writes them as strings), states and types as
   * the first stored value their API name stands for ({@link #canonical}); derived fields (an element instance's
   * hasIncident) left out.
   */
  public static Map<String, Object> document(Entity entity, JsonNode item) {
    Map<String, Object> document = new LinkedHashMap<>();
    for (ApiField field : entity.fields()) {
      JsonNode value = item.get(field.name());
      if (value == null || value.isNull() || field.type() == FieldType.PRESENCE) {
        continue;
      }
      Object stored = field.type() == FieldType.KEY ? (Object) Long.parseLong(value.asText())
          : field.vocabulary() != null ? field.vocabulary().stored(value.asText()).getFirst()
          : JSON.convertValue(value, Object.class);
      document.put(field.stored(), stored);
    }
    return document;
  }

  /**
   * A stored state or type as {@link #document} reads it back from the API: the API may name several stored values
   * alike (a job a worker holds is CREATED there), so both sides of a comparison go through the API's name.
   */
  public static Object canonical(ApiField field, Object stored) {
    if (field.vocabulary() == null || !(stored instanceof String value)) {
      return stored;
    }
    List<String> back = field.vocabulary().stored(field.vocabulary().name(value));
    return back.isEmpty() ? stored : back.getFirst();
  }

  private JsonNode send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(response.request().method() + " " + response.uri() + " answered "
            + response.statusCode() + ": " + response.body());
      }
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException("web app at " + base + " did not answer", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
