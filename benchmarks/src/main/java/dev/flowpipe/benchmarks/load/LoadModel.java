package dev.flowpipe.benchmarks.load;

import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.command.ClientStatusException;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import io.camunda.zeebe.model.bpmn.instance.Process;
import io.camunda.zeebe.model.bpmn.instance.zeebe.ZeebeTaskDefinition;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The BPMN model the load generator starts: the built-in one (start, one service task, end) or a {@code .bpmn} file,
 * whose job types (every task with a {@code zeebe:taskDefinition}) get one worker each.
 */
public record LoadModel(String processId, List<String> jobTypes, BpmnModelInstance bpmn, String resourceName) {

  public static final String BUILT_IN_PROCESS = "load";
  public static final String BUILT_IN_JOB_TYPE = "load-work";

  public static LoadModel builtIn() {
    return new LoadModel(BUILT_IN_PROCESS, List.of(BUILT_IN_JOB_TYPE),
        Bpmn.createExecutableProcess(BUILT_IN_PROCESS).startEvent()
            .serviceTask("work", t -> t.zeebeJobType(BUILT_IN_JOB_TYPE)).endEvent().done(),
        "load.bpmn");
  }

  /** The model of the settings: the file if one is given, else the built-in one. */
  public static LoadModel of(LoadSettings settings) {
    return settings.model() == null ? builtIn() : fromFile(settings.model());
  }

  public static LoadModel fromFile(Path file) {
    BpmnModelInstance bpmn;
    try {
      bpmn = Bpmn.readModelFromFile(file.toFile());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("model " + file + " is not a readable BPMN file: " + e.getMessage(), e);
    }
    List<String> executable = new ArrayList<>();
    for (Process process : bpmn.getModelElementsByType(Process.class)) {
      if (process.isExecutable()) {
        executable.add(process.getId());
      }
    }
    if (executable.size() != 1) {
      throw new IllegalArgumentException(
          "model " + file + " must have exactly one executable process, has " + executable);
    }
    Set<String> types = new LinkedHashSet<>();
    for (ZeebeTaskDefinition definition : bpmn.getModelElementsByType(ZeebeTaskDefinition.class)) {
      String type = definition.getType();
      if (type == null || type.startsWith("=")) {
        throw new IllegalArgumentException("model " + file + ": job type must be a fixed string for the load "
            + "generator to start a worker for it, was '" + type + "'");
      }
      types.add(type);
    }
    return new LoadModel(executable.getFirst(), List.copyOf(types), bpmn, file.getFileName().toString());
  }

  /** Deploys the model; the node reports ready a moment before the gateway knows the partition, so UNAVAILABLE is retried. */
  public void deploy(ZeebeClient client) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        client.newDeployResourceCommand().addProcessModel(bpmn, resourceName).send().join();
        return;
      } catch (ClientStatusException e) {
        if (e.getStatusCode() != Status.Code.UNAVAILABLE || attempt >= 50) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }
}
