package dev.flowpipe.benchmarks.report;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * p50 and p99 of a node's timer over its life so far, and its recent maximum, in milliseconds; each absent (null,
 * and left out of the JSON) when the node published none.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Quantiles(Long p50, Long p99, Long max) {

}
