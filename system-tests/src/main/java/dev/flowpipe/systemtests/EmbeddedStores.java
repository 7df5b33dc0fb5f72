package dev.flowpipe.systemtests;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.testsupport.NodeProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The embedded OpenSearch that a run keeps apart from its nodes (1 GB heap, free ports), from a built project. */
public final class EmbeddedStores {

  private EmbeddedStores() {}

  /** Its settings, the child's class path taken from the project built under {@code root}. */
  public static EmbeddedSearchStore.Settings settings(Path root) {
    return new EmbeddedSearchStore.Settings(EmbeddedSearchStore.Engine.OPENSEARCH, 0, 0, 1024,
        Duration.ofSeconds(90), Duration.ofSeconds(15), NodeProcess.embeddedStoreClasspath(root), null, 0, List.of(), null, null);
  }
}
