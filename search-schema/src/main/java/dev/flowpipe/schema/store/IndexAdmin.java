package dev.flowpipe.schema.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Index administration in the store's REST API (alias switches, deletion, a scan of every stored document), sent as
 * plain JSON through whatever {@link Exchange} the store adapter gives it.
 */
public final class IndexAdmin {

  private static final ObjectMapper JSON = new ObjectMapper();
  // how long the store keeps a scan's position between two pages; a scan abandoned by a crash expires after it
  private static final String SCROLL_KEEP_ALIVE = "2m";

  /** Sends one request and hands back the answer of any status; an unreachable store throws. */
  @FunctionalInterface
  public interface Exchange {
    Answer send(String what, String method, String path, String json);
  }

  /** An answer of any HTTP status. */
  public record Answer(int status, String body) {}

  private final Exchange exchange;

  public IndexAdmin(Exchange exchange) {
    this.exchange = exchange;
  }

  /** Applies alias actions ({@code {"actions": [...]}}) in one atomic request. */
  public void updateAliases(String actionsJson) {
    expectOk("update aliases", exchange.send("update aliases", "POST", "/_aliases", actionsJson));
  }

  /** Deletes the index; one that is already gone is no error. */
  public void deleteIndex(String index) {
    Answer answer = exchange.send("delete index " + index, "DELETE", "/" + index, null);
    if (answer.status() != 404) {
      expectOk("delete index " + index, answer);
    }
  }

  /**
   * Deletes every document of {@code indices} (names or aliases; missing ones are skipped) whose {@code field} equals
   * {@code value}, and makes the deletion visible at once; returns how many were deleted. Documents written meanwhile
   * may survive: callers delete what no writer is writing.
   */
  public long deleteWhere(List<String> indices, String field, Object value) {
    String what = "delete " + field + "=" + value + " from " + String.join(",", indices);
    JsonNode answer = read(what, exchange.send(what, "POST",
        "/" + String.join(",", indices) + "/_delete_by_query?conflicts=proceed&refresh=true&ignore_unavailable=true",
        write(Map.of("query", Map.of("term", Map.of(field, value))))));
    if (answer.path("failures").size() > 0) {
      throw new IllegalStateException(what + " failed: " + answer.path("failures"));
    }
    pruneDeletes(indices, what);
    return answer.path("deleted").asLong();
  }

  /**
   * A deleted document leaves a tombstone with its version for {@code index.gc_deletes} (60 s): until it goes, a write
   * of that id at a lower external version is refused as a conflict, which a position-versioned writer would count as
   * already applied. So the tombstones go now: deletes are collected on the next refresh once gc_deletes is 0, and
   * the setting is then put back to the index default.
   */
  private void pruneDeletes(List<String> indices, String what) {
    String names = String.join(",", indices);
    expectOk(what + ": prune deletes", exchange.send(what, "PUT", "/" + names + "/_settings?ignore_unavailable=true",
        "{\"index.gc_deletes\": \"0s\"}"));
    expectOk(what + ": refresh", exchange.send(what, "POST", "/" + names + "/_refresh?ignore_unavailable=true", null));
    expectOk(what + ": restore gc_deletes", exchange.send(what, "PUT",
        "/" + names + "/_settings?ignore_unavailable=true", "{\"index.gc_deletes\": null}"));
  }

  /**
   * Sends one request of the store's REST API whose answer must be a success, and hands back its JSON: for the
   * administration of retention (index statistics, aggregations over a period's index, deletions by key).
   */
  public JsonNode request(String what, String method, String path, Object body) {
    return read(what, exchange.send(what, method, path, body == null ? null : write(body)));
  }

  /**
   * Hands every document of the index to {@code pages}, {@code pageSize} at a time, in the store's own order, with
   * its version; a point-in-time view (a scroll), so documents written meanwhile may or may not be seen.
   */
  public void scan(String index, int pageSize, Consumer<List<StoredDocument>> pages) {
    if (pageSize < 1) {
      throw new IllegalArgumentException("scan page size must be >= 1, was " + pageSize);
    }
    String what = "scan " + index;
    JsonNode page = read(what, exchange.send(what, "POST", "/" + index + "/_search?scroll=" + SCROLL_KEEP_ALIVE,
        write(Map.of("size", pageSize, "sort", List.of("_doc"), "version", true))));
    String scrollId = page.path("_scroll_id").asText(null);
    try {
      while (true) {
        List<StoredDocument> documents = documents(page);
        if (documents.isEmpty()) {
          return;
        }
        pages.accept(documents);
        page = read(what, exchange.send(what, "POST", "/_search/scroll",
            write(Map.of("scroll", SCROLL_KEEP_ALIVE, "scroll_id", scrollId))));
        scrollId = page.path("_scroll_id").asText(scrollId);
      }
    } finally {
      if (scrollId != null) {
        // frees the store's scan context now rather than at its expiry; a failure here changes nothing read
        exchange.send("clear scroll", "DELETE", "/_search/scroll", write(Map.of("scroll_id", List.of(scrollId))));
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static List<StoredDocument> documents(JsonNode page) {
    List<StoredDocument> documents = new ArrayList<>();
    for (JsonNode hit : page.path("hits").path("hits")) {
      documents.add(new StoredDocument(
          hit.path("_id").asText(), hit.path("_version").asLong(), JSON.convertValue(hit.path("_source"), Map.class)));
    }
    return documents;
  }

  private static JsonNode read(String what, Answer answer) {
    expectOk(what, answer);
    try {
      return JSON.readTree(answer.body());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(what + ": unreadable answer: " + e.getOriginalMessage(), e);
    }
  }

  private static void expectOk(String what, Answer answer) {
    if (answer.status() / 100 != 2) {
      throw AnswerClass.failure(what, answer.status(), answer.body());
    }
  }

  private static String write(Object body) {
    try {
      return JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
