package dev.flowpipe.node.flowcontrol;

import dev.flowpipe.flowcontrol.WriteLimitApplier;
import dev.flowpipe.node.broker.EmbeddedBroker;
import io.camunda.zeebe.broker.system.configuration.FlowControlCfg;
import io.camunda.zeebe.broker.system.configuration.backpressure.RateLimitCfg;
import io.camunda.zeebe.broker.system.configuration.backpressure.ThrottleCfg;
import io.camunda.zeebe.broker.system.partitions.ZeebePartition;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * The node's way of applying a write limit: through the partition's flow-control admin access in the embedded broker.
 * The request limiter stays as configured; the broker's own record-count throttle is switched off, since it would
 * fight the lag controller.
 */
final class PartitionAdminApplier implements WriteLimitApplier {

  private final EmbeddedBroker broker;

  PartitionAdminApplier(EmbeddedBroker broker) {
    this.broker = broker;
  }

  @Override
  public void apply(int partitionId, OptionalInt limit) {
    for (ZeebePartition partition : broker.partitions()) {
      if (partition.getPartitionId() == partitionId) {
        partition.getAdminAccess().configureFlowControl(config(limit)).join(1, TimeUnit.SECONDS);
        return;
      }
    }
    throw new IllegalStateException("partition " + partitionId + " is not on this node");
  }

  private static FlowControlCfg config(OptionalInt limit) {
    RateLimitCfg write = new RateLimitCfg();
    ThrottleCfg throttling = new ThrottleCfg();
    throttling.setEnabled(false);
    write.setThrottling(throttling);
    write.setRampUp(Duration.ZERO);
    write.setEnabled(limit.isPresent());
    if (limit.isPresent()) {
      write.setLimit(limit.getAsInt());
    }
    FlowControlCfg cfg = new FlowControlCfg();
    cfg.setWrite(write); // the request limiter stays as configured (null leaves it)
    return cfg;
  }
}
