package dev.flowpipe.schema.index;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The read model's indices: one per entity. The index name carries the schema version, so a changed mapping goes to a
 * new index instead of clashing with the old one.
 */
public enum ReadModelIndex {
  PROCESS_DEFINITION("process-definition"),
  PROCESS_INSTANCE("process-instance"),
  FLOW_NODE_INSTANCE("flow-node-instance"),
  VARIABLE("variable"),
  INCIDENT("incident"),
  JOB("job"),
  /** Documents the store refused for good (mapping conflict, too large), kept with the reason. */
  DEAD_LETTER("dead-letter");

  /** Bump together with the {@code _meta.schemaVersion} of every mapping file when a mapping changes. */
  public static final int SCHEMA_VERSION = 1;

  private final String entity;

  ReadModelIndex(String entity) {
    this.entity = entity;
  }

  public String entity() {
    return entity;
  }

  /** e.g. {@code flowpipe-process-instance-v1} for prefix {@code flowpipe}. */
  public String indexName(String prefix) {
    return prefix + "-" + entity + "-v" + SCHEMA_VERSION;
  }

  /** The index body (settings and mappings) with the refresh interval filled in. */
  public String body(String refreshInterval) {
    String resource = "/flowpipe/schema/" + entity + ".json";
    try (InputStream in = ReadModelIndex.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("schema resource missing: " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${refreshInterval}", refreshInterval);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
