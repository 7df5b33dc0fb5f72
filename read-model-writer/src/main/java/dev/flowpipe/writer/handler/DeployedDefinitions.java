package dev.flowpipe.writer.handler;

/**
 * Where the names of deployed process definitions and DRDs are learned as their records pass (the writer's
 * {@link dev.flowpipe.writer.store.DerivedFields}).
 */
public interface DeployedDefinitions {

  /** Learns what a deployed definition gives its instances. */
  void deployed(long definitionKey, String name, String versionTag, BpmnNames names);

  /** Learns what a deployed DRD gives its decisions (its name and version, which the decision records lack). */
  void requirementsDeployed(long requirementsKey, String name, int version);
}
