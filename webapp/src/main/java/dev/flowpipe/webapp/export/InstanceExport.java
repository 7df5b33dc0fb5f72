package dev.flowpipe.webapp.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.webapp.api.SearchAnswer;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.query.Entity;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A filtered process-instance list as CSV, read page by page after the last page's cursor (one page in memory), up to
 * a row cap. The search is the API's: the same filter and sort, checked the same way.
 */
public final class InstanceExport {

  static final List<String> COLUMNS = List.of("processInstanceKey", "processDefinitionId", "processDefinitionName",
      "processDefinitionVersion", "processDefinitionKey", "state", "hasIncident", "startDate", "endDate",
      "parentProcessInstanceKey", "tenantId");

  private final SearchService search;
  private final int maxRows;
  private final int pageSize;

  public InstanceExport(SearchService search, int maxRows, int pageSize) {
    this.search = search;
    this.maxRows = maxRows;
    this.pageSize = pageSize;
  }

  /** The export of one request, its first page already read: a bad filter is refused before any row is written. */
  public Started start(JsonNode filter, JsonNode sort) {
    ObjectNode request = JsonNodeFactory.instance.objectNode();
    if (filter != null) {
      request.set("filter", filter);
    }
    if (sort != null) {
      request.set("sort", sort);
    }
    SearchAnswer first = search.search(Entity.PROCESS_INSTANCES, page(request, null, Math.min(pageSize, maxRows)));
    return new Started(request, first);
  }

  private static ObjectNode page(ObjectNode request, String after, int limit) {
    ObjectNode paged = request.deepCopy();
    ObjectNode page = paged.putObject("page").put("limit", limit);
    if (after != null) {
      page.put("after", after);
    }
    return paged;
  }

  /** An export whose first page was read. */
  public final class Started {

    private final ObjectNode request;
    private final SearchAnswer first;

    private Started(ObjectNode request, SearchAnswer first) {
      this.request = request;
      this.first = first;
    }

    /** How many instances match the filter. */
    public long total() {
      return first.page().totalItems();
    }

    /** How many rows the export writes: the matches, up to the cap. */
    public long rows() {
      return Math.min(total(), maxRows);
    }

    /** Writes the header and the rows, reading the pages after the first as it goes. */
    public void writeTo(OutputStream out) {
      try {
        out.write(CsvRows.line(COLUMNS).getBytes(StandardCharsets.UTF_8));
        SearchAnswer page = first;
        long written = 0;
        while (true) {
          for (Map<String, Object> item : page.items()) {
            if (written == maxRows) {
              return;
            }
            out.write(CsvRows.line(COLUMNS.stream().map(item::get).toList()).getBytes(StandardCharsets.UTF_8));
            written++;
          }
          if (page.items().size() < pageSize || written >= maxRows || page.page().endCursor() == null) {
            return;
          }
          int limit = (int) Math.min(pageSize, maxRows - written);
          page = search.search(Entity.PROCESS_INSTANCES, page(request, page.page().endCursor(), limit));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
