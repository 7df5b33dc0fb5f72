package dev.flowpipe.benchmarks.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * p50 and p99 of a node's timer over its life so far, and its recent maximum, in milliseconds; each absent (null,
 * and left out of the JSON) when the node published none.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Quantiles(Long p50, Long p99, Long max) {

  /** As the reports not yet typed carry it. */
  public Map<String, Object> asMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    if (p50 != null) {
      map.put("p50", p50);
      map.put("p99", p99);
    }
    if (max != null) {
      map.put("max", max);
    }
    return map;
  }
}
