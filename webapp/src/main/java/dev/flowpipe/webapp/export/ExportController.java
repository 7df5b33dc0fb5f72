package dev.flowpipe.webapp.export;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.webapp.query.BadRequestException;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.springframework.http.HttpHeaders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /ui/export/process-instances.csv?filter=<v2 filter JSON>&sort=<v2 sort JSON>}: the instance list a filter
 * matches, as a CSV download (a link the browser follows, so it streams to disk). A bad filter is a 400 naming its
 * part, as on the search.
 */
@RestController
public class ExportController {

  /** Always there; how many rows were written when it is less than the matches (the cap). */
  public static final String TOTAL_HEADER = "Flowpipe-Export-Total";
  public static final String ROWS_HEADER = "Flowpipe-Export-Rows";

  private final InstanceExport export;
  private final ObjectMapper json = new ObjectMapper();

  public ExportController(InstanceExport export) {
    this.export = export;
  }

  /**
   * Written on the request's thread, not as an async body: an export of many pages may take longer than the async
   * timeout the searches have.
   */
  @GetMapping(path = "/ui/export/process-instances.csv")
  public void processInstances(@RequestParam(name = "filter", required = false) String filter,
      @RequestParam(name = "sort", required = false) String sort, HttpServletResponse response) throws IOException {
    InstanceExport.Started started = export.start(parse("filter", filter), parse("sort", sort));
    response.setContentType("text/csv;charset=UTF-8");
    response.setHeader(HttpHeaders.CONTENT_DISPOSITION, "attachment; filename=\"process-instances.csv\"");
    response.setHeader(TOTAL_HEADER, String.valueOf(started.total()));
    response.setHeader(ROWS_HEADER, String.valueOf(started.rows()));
    try (OutputStream out = new BufferedOutputStream(response.getOutputStream(), 64 * 1024)) {
      started.writeTo(out);
    }
  }

  private JsonNode parse(String part, String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return json.readTree(text);
    } catch (JsonProcessingException e) {
      throw new BadRequestException(part, "is no JSON: " + e.getOriginalMessage());
    }
  }
}
