package dev.flowpipe.benchmarks.harness;

import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.benchmarks.load.Saturation;
import dev.flowpipe.benchmarks.load.Availability;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.time.Duration;

/**
 * A scenario's client on a node and the models it deploys there.
 */
public final class ScenarioNodes {

  private ScenarioNodes() {}

  public static ZeebeClient client(NodeProcess node) {
    return ZeebeClient.newClientBuilder().grpcAddress(node.gateway()).usePlaintext()
        .defaultRequestTimeout(Duration.ofSeconds(30)).build();
  }

  public static void deploy(ZeebeClient client) throws InterruptedException {
    // the node reports ready a moment before the gateway knows the partition: retry UNAVAILABLE for a while
    for (int attempt = 1; ; attempt++) {
      try {
        deployOnce(client);
        return;
      } catch (io.camunda.zeebe.client.api.command.ClientStatusException e) {
        if (e.getStatusCode() != io.grpc.Status.Code.UNAVAILABLE || attempt >= 50) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  public static void deployOnce(ZeebeClient client) {
    client.newDeployResourceCommand()
        .addProcessModel(Bpmn.createExecutableProcess(Saturation.PROCESS).startEvent()
            .serviceTask("work", t -> t.zeebeJobType(Saturation.JOB_TYPE)).endEvent().done(), "bench.bpmn")
        .addProcessModel(Bpmn.createExecutableProcess(Availability.PROBE).startEvent().endEvent().done(), "probe.bpmn")
        .send().join();
  }
}
