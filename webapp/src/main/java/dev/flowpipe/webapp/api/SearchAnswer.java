package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * A search answer in the shape of Camunda's REST API v2: the items of the page and where the page is. {@code
 * consistency} is there only when the request asked for read-your-writes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SearchAnswer(List<Map<String, Object>> items, PageInfo page, ConsistencyInfo consistency) {

  /**
   * @param totalItems all matching items
   * @param hasMoreTotalItems whether there are more than {@code totalItems} (a capped count)
   * @param startCursor the first item's cursor (for {@code page.before}), null without items
   * @param endCursor the last item's cursor (for {@code page.after}), null without items
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record PageInfo(long totalItems, boolean hasMoreTotalItems, String startCursor, String endCursor) {}

  /**
   * @param reached the read model held everything asked for before the answer was made
   * @param waitedMillis how long the request waited for it
   */
  public record ConsistencyInfo(boolean reached, long waitedMillis) {}
}
