package dev.flowpipe.schema.index;

import java.util.regex.Pattern;

/**
 * How the read model's indices are laid out in the store when they are created: the refresh interval (in the store's
 * notation), and the primary shards and replicas of each index. A single node holds one shard and no replica (the
 * defaults); an external cluster may want more of either. Fixed when an index is created: changing them later applies
 * to indices created from then on.
 */
public record IndexLayout(String refreshInterval, int shards, int replicas) {

  private static final Pattern REFRESH = Pattern.compile("-1|\\d+(ms|s|m|h)");

  public IndexLayout {
    if (refreshInterval == null || !REFRESH.matcher(refreshInterval).matches()) {
      throw new IllegalArgumentException("refresh interval must look like 100ms, 1s or -1, was " + refreshInterval);
    }
    if (shards < 1 || shards > 1024) {
      throw new IllegalArgumentException("index shards must be 1 to 1024, was " + shards);
    }
    if (replicas < 0 || replicas > 16) {
      throw new IllegalArgumentException("index replicas must be 0 to 16, was " + replicas);
    }
  }

  /** One shard, no replica: a single store node. */
  public static IndexLayout singleNode(String refreshInterval) {
    return new IndexLayout(refreshInterval, 1, 0);
  }
}
