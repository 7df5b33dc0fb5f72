package dev.flowpipe.webapp.operations;

import dev.flowpipe.webapp.cluster.Topology;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The engine's commands the web app's operations send: what a Zeebe gateway offers, in the web app's terms. Inside the
 * node they go through the node's own gateway; the web app on its own is given a gateway's address, or has none
 * ({@link #NONE}). A command the engine refuses throws {@link EngineCommandException} saying why.
 */
public interface EngineCommands {

  /** No gateway: every command fails with {@link EngineCommandException.Kind#NOT_CONFIGURED}. */
  EngineCommands NONE = new EngineCommands() {
    @Override
    public void cancelProcessInstance(long processInstanceKey) {
      throw notConfigured();
    }

    @Override
    public void resolveIncident(long incidentKey) {
      throw notConfigured();
    }

    @Override
    public void updateJob(long jobKey, Integer retries, Duration timeout) {
      throw notConfigured();
    }

    @Override
    public void setVariables(long elementInstanceKey, Map<String, Object> variables, boolean local) {
      throw notConfigured();
    }

    @Override
    public CreatedInstance createProcessInstance(InstanceToCreate instance) {
      throw notConfigured();
    }

    @Override
    public PublishedMessage publishMessage(MessageToPublish message) {
      throw notConfigured();
    }

    @Override
    public void modifyProcessInstance(long processInstanceKey, Modification modification) {
      throw notConfigured();
    }

    @Override
    public void migrateProcessInstance(long processInstanceKey, Migration migration) {
      throw notConfigured();
    }

    @Override
    public Topology topology() {
      throw notConfigured();
    }

    private EngineCommandException notConfigured() {
      return new EngineCommandException(EngineCommandException.Kind.NOT_CONFIGURED,
          "this web app has no gateway to send commands to: set flowpipe.webapp.operations.gateway-address"
              + " (host:port of a Zeebe gateway), or use the web app inside the node");
    }
  };

  void cancelProcessInstance(long processInstanceKey);

  void resolveIncident(long incidentKey);

  /** Sets a job's retries and/or its timeout (null: leave as it is). */
  void updateJob(long jobKey, Integer retries, Duration timeout);

  /** Creates or updates variables on a scope: locally (that scope only) or propagated to where they exist above. */
  void setVariables(long elementInstanceKey, Map<String, Object> variables, boolean local);

  CreatedInstance createProcessInstance(InstanceToCreate instance);

  PublishedMessage publishMessage(MessageToPublish message);

  /** Activates and terminates elements of a running instance, in one command (Zeebe's ModifyProcessInstance). */
  void modifyProcessInstance(long processInstanceKey, Modification modification);

  /** Moves a running instance to another definition, element by element (Zeebe's MigrateProcessInstance). */
  void migrateProcessInstance(long processInstanceKey, Migration migration);

  /** The cluster as the gateway sees it (its brokers, their partitions, roles and health). */
  Topology topology();

  /**
   * A process instance to start: by definition key, or by BPMN process id and version (-1: the latest).
   *
   * @param processDefinitionKey null to use the id and version
   */
  record InstanceToCreate(Long processDefinitionKey, String processDefinitionId, int processDefinitionVersion,
      Map<String, Object> variables, String tenantId) {}

  record CreatedInstance(long processDefinitionKey, String processDefinitionId, int processDefinitionVersion,
      long processInstanceKey, String tenantId) {}

  /** A message to publish; {@code timeToLive} zero: correlate now or never. */
  record MessageToPublish(String name, String correlationKey, Duration timeToLive, String messageId,
      Map<String, Object> variables, String tenantId) {}

  record PublishedMessage(long messageKey, String tenantId) {}

  /**
   * What to activate and what to terminate in one instance; at least one of either.
   *
   * @param terminations the element instance keys to terminate
   */
  record Modification(List<Activation> activations, List<Long> terminations) {
    public Modification {
      activations = List.copyOf(activations);
      terminations = List.copyOf(terminations);
    }
  }

  /**
   * An element to activate.
   *
   * @param ancestorElementInstanceKey the flow scope instance to activate it in, or -1: the engine finds the one
   * @param variables variables to set first, each in the scope of an element id (null: the activated element's)
   */
  record Activation(String elementId, long ancestorElementInstanceKey, List<ScopedVariables> variables) {
    public Activation {
      variables = List.copyOf(variables);
    }
  }

  /** Variables set in the scope of {@code scopeId} (null: the activated element's own). */
  record ScopedVariables(Map<String, Object> variables, String scopeId) {}

  /** The target definition and which source element goes to which target element. */
  record Migration(long targetProcessDefinitionKey, List<ElementMapping> mappings) {
    public Migration {
      mappings = List.copyOf(mappings);
    }
  }

  record ElementMapping(String sourceElementId, String targetElementId) {}
}
