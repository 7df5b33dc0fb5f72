package dev.flowpipe.webapp.operations;

import dev.flowpipe.webapp.cluster.Topology;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.ZeebeFuture;
import io.camunda.zeebe.client.api.command.ClientStatusException;
import io.camunda.zeebe.client.api.command.CreateProcessInstanceCommandStep1.CreateProcessInstanceCommandStep3;
import io.camunda.zeebe.client.api.command.MigrateProcessInstanceCommandStep1.MigrateProcessInstanceCommandFinalStep;
import io.camunda.zeebe.client.api.command.MigrateProcessInstanceCommandStep1.MigrateProcessInstanceCommandStep2;
import io.camunda.zeebe.client.api.command.ModifyProcessInstanceCommandStep1;
import io.camunda.zeebe.client.api.command.ModifyProcessInstanceCommandStep1.ModifyProcessInstanceCommandStep2;
import io.camunda.zeebe.client.api.command.ModifyProcessInstanceCommandStep1.ModifyProcessInstanceCommandStep3;
import io.camunda.zeebe.client.api.command.PublishMessageCommandStep1.PublishMessageCommandStep3;
import io.camunda.zeebe.client.api.response.PartitionInfo;
import io.camunda.zeebe.client.api.response.ProcessInstanceEvent;
import io.camunda.zeebe.client.api.response.PublishMessageResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/** The engine's commands through a Zeebe gateway, with the official client; the gateway's refusals as their kind. */
public final class ZeebeEngineCommands implements EngineCommands, AutoCloseable {

  private final ZeebeClient client;
  private final Duration topologyTimeout;
  /** The cluster's partition count once the gateway told it (0: not yet); it does not change in Zeebe 8.6. */
  private volatile int partitionCount;

  public ZeebeEngineCommands(ZeebeClient client) {
    this(client, client.getConfiguration().getDefaultRequestTimeout());
  }

  /**
   * @param topologyTimeout the longest a read of the cluster's topology may take ({@code GET /v2/topology}, the
   *     partition count): an unreachable gateway is a quick 503, not a wait as long as a command's
   */
  public ZeebeEngineCommands(ZeebeClient client, Duration topologyTimeout) {
    this.client = client;
    this.topologyTimeout = topologyTimeout;
  }

  /** A client of the gateway at {@code host:port}, plaintext, with the given request timeout. */
  public static ZeebeEngineCommands connect(String gatewayAddress, Duration requestTimeout) {
    return new ZeebeEngineCommands(ZeebeClient.newClientBuilder().grpcAddress(java.net.URI.create(
        "http://" + gatewayAddress)).usePlaintext().defaultRequestTimeout(requestTimeout).build());
  }

  @Override
  public void cancelProcessInstance(long processInstanceKey) {
    requireKnownPartition("process instance", processInstanceKey);
    join(client.newCancelInstanceCommand(processInstanceKey).send());
  }

  @Override
  public void resolveIncident(long incidentKey) {
    requireKnownPartition("incident", incidentKey);
    join(client.newResolveIncidentCommand(incidentKey).send());
  }

  @Override
  public void updateJob(long jobKey, Integer retries, Duration timeout) {
    requireKnownPartition("job", jobKey);
    if (retries != null) {
      join(client.newUpdateRetriesCommand(jobKey).retries(retries).send());
    }
    if (timeout != null) {
      join(client.newUpdateTimeoutCommand(jobKey).timeout(timeout).send());
    }
  }

  @Override
  public void setVariables(long elementInstanceKey, Map<String, Object> variables, boolean local) {
    requireKnownPartition("element instance", elementInstanceKey);
    join(client.newSetVariablesCommand(elementInstanceKey).variables(variables).local(local).send());
  }

  @Override
  public CreatedInstance createProcessInstance(InstanceToCreate instance) {
    var start = client.newCreateInstanceCommand();
    CreateProcessInstanceCommandStep3 command = instance.processDefinitionKey() != null
        ? start.processDefinitionKey(instance.processDefinitionKey())
        : instance.processDefinitionVersion() < 0
            ? start.bpmnProcessId(instance.processDefinitionId()).latestVersion()
            : start.bpmnProcessId(instance.processDefinitionId()).version(instance.processDefinitionVersion());
    if (!instance.variables().isEmpty()) {
      command = command.variables(instance.variables());
    }
    if (instance.tenantId() != null) {
      command = command.tenantId(instance.tenantId());
    }
    ProcessInstanceEvent created = join(command.send());
    return new CreatedInstance(created.getProcessDefinitionKey(), created.getBpmnProcessId(), created.getVersion(),
        created.getProcessInstanceKey(), created.getTenantId());
  }

  @Override
  public PublishedMessage publishMessage(MessageToPublish message) {
    PublishMessageCommandStep3 command = client.newPublishMessageCommand().messageName(message.name())
        .correlationKey(message.correlationKey() == null ? "" : message.correlationKey())
        .timeToLive(message.timeToLive());
    if (message.messageId() != null) {
      command = command.messageId(message.messageId());
    }
    if (!message.variables().isEmpty()) {
      command = command.variables(message.variables());
    }
    if (message.tenantId() != null) {
      command = command.tenantId(message.tenantId());
    }
    PublishMessageResponse published = join(command.send());
    return new PublishedMessage(published.getMessageKey(), published.getTenantId());
  }

  @Override
  public void modifyProcessInstance(long processInstanceKey, Modification modification) {
    requireKnownPartition("process instance", processInstanceKey);
    ModifyProcessInstanceCommandStep1 start = client.newModifyProcessInstanceCommand(processInstanceKey);
    ModifyProcessInstanceCommandStep2 command = null;
    for (Activation activation : modification.activations()) {
      ModifyProcessInstanceCommandStep1 next = command == null ? start : command.and();
      ModifyProcessInstanceCommandStep3 activate = activation.ancestorElementInstanceKey() < 0
          ? next.activateElement(activation.elementId())
          : next.activateElement(activation.elementId(), activation.ancestorElementInstanceKey());
      for (ScopedVariables variables : activation.variables()) {
        activate = variables.scopeId() == null ? activate.withVariables(variables.variables())
            : activate.withVariables(variables.variables(), variables.scopeId());
      }
      command = activate;
    }
    for (long elementInstanceKey : modification.terminations()) {
      command = (command == null ? start : command.and()).terminateElement(elementInstanceKey);
    }
    if (command == null) {
      throw new IllegalArgumentException("a modification without instructions"); // OperationRequests refuses those
    }
    join(command.send());
  }

  @Override
  public void migrateProcessInstance(long processInstanceKey, Migration migration) {
    requireKnownPartition("process instance", processInstanceKey);
    MigrateProcessInstanceCommandStep2 plan = client.newMigrateProcessInstanceCommand(processInstanceKey)
        .migrationPlan(migration.targetProcessDefinitionKey());
    MigrateProcessInstanceCommandFinalStep command = null;
    for (ElementMapping mapping : migration.mappings()) {
      command = (command == null ? plan : command).addMappingInstruction(mapping.sourceElementId(),
          mapping.targetElementId());
    }
    if (command == null) {
      throw new IllegalArgumentException("a migration without mappings"); // OperationRequests refuses those
    }
    join(command.send());
  }

  @Override
  public Topology topology() {
    io.camunda.zeebe.client.api.response.Topology topology = readTopology();
    return new Topology(
        topology.getBrokers().stream().map(broker -> new Topology.Broker(broker.getNodeId(), broker.getHost(),
            broker.getPort(), broker.getPartitions().stream().map(ZeebeEngineCommands::partition).toList(),
            broker.getVersion())).toList(),
        topology.getClusterSize(), topology.getPartitionsCount(), topology.getReplicationFactor(),
        topology.getGatewayVersion(), "-1");
  }

  /** The v2 API's names are the gRPC enums' in lower case (leader, follower, inactive; healthy, unhealthy, dead). */
  private static Topology.Partition partition(PartitionInfo partition) {
    return new Topology.Partition(partition.getPartitionId(), partition.getRole().name().toLowerCase(Locale.ROOT),
        partition.getHealth().name().toLowerCase(Locale.ROOT));
  }

  /**
   * A key whose partition bits name no partition of the cluster (key 1 names partition 0) cannot be known to the
   * engine: 404, as for any unknown key. The gateway itself would answer UNAVAILABLE ("partition 0 ... does not
   * exist"), which a client takes for a reason to retry for ever.
   */
  private void requireKnownPartition(String what, long key) {
    int partition = WrittenPositions.partitionOf(key);
    int partitions = partitionCount();
    if (partition < 1 || (partitions > 0 && partition > partitions)) {
      throw new EngineCommandException(EngineCommandException.Kind.NOT_FOUND, "no " + what + " with key " + key
          + ": its key names partition " + partition + ", and the cluster's partitions are 1 to "
          + (partitions > 0 ? partitions : "its partition count"));
    }
  }

  private int partitionCount() {
    if (partitionCount == 0) {
      try {
        partitionCount = readTopology().getPartitionsCount();
      } catch (EngineCommandException e) {
        return 0; // the gateway cannot say now: the engine decides about the key
      }
    }
    return partitionCount;
  }

  /**
   * The gateway's topology within {@code topologyTimeout} (the gRPC deadline, and the wait for the answer, since the
   * client retries an unreachable gateway on its own); any failure is the gateway's being unavailable, named.
   */
  private io.camunda.zeebe.client.api.response.Topology readTopology() {
    ZeebeFuture<io.camunda.zeebe.client.api.response.Topology> answer =
        client.newTopologyRequest().requestTimeout(topologyTimeout).send();
    try {
      return answer.join(topologyTimeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (io.camunda.zeebe.client.api.command.ClientException e) {
      answer.cancel(true);
      throw new EngineCommandException(EngineCommandException.Kind.UNAVAILABLE, "the gateway "
          + client.getConfiguration().getGrpcAddress().getAuthority() + " did not answer the topology within "
          + topologyTimeout.toMillis() + " ms: " + e.getMessage(), e);
    }
  }

  private static <T> T join(ZeebeFuture<T> future) {
    try {
      return future.join();
    } catch (ClientStatusException e) {
      throw new EngineCommandException(kind(e.getStatusCode()), e.getMessage(), e);
    } catch (io.camunda.zeebe.client.api.command.ClientException e) {
      throw new EngineCommandException(EngineCommandException.Kind.UNAVAILABLE, e.getMessage(), e);
    }
  }

  /** The gateway's gRPC status as the kind of refusal (the same mapping as Camunda's REST gateway makes). */
  static EngineCommandException.Kind kind(io.grpc.Status.Code code) {
    return switch (code) {
      case NOT_FOUND -> EngineCommandException.Kind.NOT_FOUND;
      case FAILED_PRECONDITION, ALREADY_EXISTS, ABORTED -> EngineCommandException.Kind.REJECTED;
      case INVALID_ARGUMENT, OUT_OF_RANGE -> EngineCommandException.Kind.INVALID;
      case DEADLINE_EXCEEDED -> EngineCommandException.Kind.TIMED_OUT;
      default -> EngineCommandException.Kind.UNAVAILABLE;
    };
  }

  @Override
  public void close() {
    client.close();
  }
}
