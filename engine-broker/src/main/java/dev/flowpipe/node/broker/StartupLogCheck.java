package dev.flowpipe.node.broker;

import dev.flowpipe.exporter.config.OnForeignStore;
import dev.flowpipe.exporter.identity.LogIdentityGate;
import dev.flowpipe.exporter.identity.LogIdentityStore;
import dev.flowpipe.node.config.NodeProperties;
import dev.flowpipe.schema.store.SearchStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before a single node's broker starts: a partition with no log on this node's disk whose read model the store holds
 * is a log younger than the store (the broker's data was deleted, or belongs to another node), and the node refuses
 * to start, naming both, unless {@code flowpipe.exporter.on-foreign-store} is {@code wipe-read-model}, which deletes
 * that partition's read model first. In a cluster a node without a partition's log is normal (its peers replicate
 * it), so there only the exporter decides, from the log id the partition's state carries ({@link LogIdentityGate}).
 */
public final class StartupLogCheck {

  private static final Logger LOG = LoggerFactory.getLogger(StartupLogCheck.class);

  private StartupLogCheck() {}

  public static void run(NodeProperties properties, SearchStore store) {
    var broker = properties.broker();
    if (broker.clusterSize() != 1 || !properties.exporter().enabled()) {
      return;
    }
    String prefix = properties.exporter().indexPrefix();
    List<String> foreign = new ArrayList<>();
    List<Integer> partitions = new ArrayList<>();
    for (int partition = 1; partition <= broker.partitionsCount(); partition++) {
      Path directory = partitionDirectory(properties, partition);
      if (hasLog(directory)) {
        continue;
      }
      LogIdentityStore.Stored stored = new LogIdentityStore(store, prefix, partition).read();
      if (stored.identity().isPresent()) {
        foreign.add("partition " + partition + " has no log under " + directory.toAbsolutePath()
            + " (a new log begins), but the search store's read model of that partition (index prefix '" + prefix
            + "') comes from " + stored.identity().get().describe()
            + (stored.exportPosition() < 0 ? "" : ", exported up to position " + stored.exportPosition()));
        partitions.add(partition);
      }
    }
    if (foreign.isEmpty()) {
      return;
    }
    String what = String.join("; ", foreign) + ".";
    if (properties.exporter().onForeignStore() == OnForeignStore.WIPE_READ_MODEL) {
      for (int partition : partitions) {
        long deleted = new LogIdentityStore(store, prefix, partition).wipeReadModel();
        LOG.warn("{} flowpipe.exporter.on-foreign-store is wipe-read-model: deleted {} documents of partition {}'s"
            + " read model; the new log's are exported instead", what, deleted, partition);
      }
      return;
    }
    throw new ForeignStoreException("refusing to start: " + what + " The broker's data was deleted or is another"
        + " node's, and exporting would mix a new log into the old one's read model. " + LogIdentityGate.WAY_OUT);
  }

  static Path partitionDirectory(NodeProperties properties, int partition) {
    // Zeebe keeps each partition's Raft log and snapshots here (PartitionDirectoryStep)
    return properties.brokerDirectory().resolve("raft-partition").resolve("partitions")
        .resolve(String.valueOf(partition));
  }

  private static boolean hasLog(Path directory) {
    if (!Files.isDirectory(directory)) {
      return false;
    }
    try (Stream<Path> files = Files.list(directory)) {
      return files.anyMatch(file -> file.getFileName().toString().endsWith(".log"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The store's read model comes from another log than this node's. */
  public static final class ForeignStoreException extends IllegalStateException {
    public ForeignStoreException(String message) {
      super(message);
    }
  }
}
