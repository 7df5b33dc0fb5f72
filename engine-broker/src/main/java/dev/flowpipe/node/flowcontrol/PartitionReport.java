package dev.flowpipe.node.flowcontrol;

import dev.flowpipe.flowcontrol.PartitionLag;
import io.camunda.zeebe.logstreams.impl.flowcontrol.FlowControlLimits;
import io.camunda.zeebe.logstreams.impl.flowcontrol.RateLimit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One partition in the {@code flowControl} endpoint's report.
 *
 * @param partitionId the partition
 * @param role {@code leader} when this node leads the partition (only a leader writes, so only a leader's lag and
 *     limit are reported), else {@code follower}
 * @param requestLimiter the broker's request limiter: its algorithm and current limit of requests in flight
 * @param writeLimit the write rate limit in force: enabled, records per second
 * @param throttling whether the lag controller is limiting writes now
 * @param writeRate records written per second
 * @param exportRate records becoming durable in the store per second
 * @param lagRecords records written but not yet durable
 * @param lagMillis age of the oldest record not yet durable
 * @param rejectedCommands commands rejected by the write limit since the broker started
 */
public record PartitionReport(
    int partitionId, String role, Map<String, Object> requestLimiter, Map<String, Object> writeLimit, boolean throttling,
    double writeRate, double exportRate, long lagRecords, long lagMillis, double rejectedCommands) {

  static PartitionReport of(
      int partitionId, boolean leading, FlowControlLimits limits, PartitionLag lag, boolean throttling,
      double rejected) {
    Map<String, Object> request = new LinkedHashMap<>();
    Map<String, Object> write = new LinkedHashMap<>();
    if (limits != null && limits.requestLimiter() != null) {
      request.put("algorithm", limits.requestLimiter().getClass().getSimpleName());
      request.put("limit", limits.requestLimiter().getLimit());
    }
    RateLimit rate = limits == null ? null : limits.writeRateLimit();
    write.put("enabled", rate != null && rate.enabled());
    if (rate != null && rate.enabled()) {
      write.put("limit", rate.limit());
    }
    return new PartitionReport(partitionId, leading ? "leader" : "follower", request, write, throttling,
        lag == null ? 0 : round(lag.writeRate()), lag == null ? 0 : round(lag.exportRate()),
        lag == null ? 0 : lag.backlog(), lag == null ? 0 : lag.age().toMillis(), rejected);
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }
}
