package dev.flowpipe.node.config;

import dev.flowpipe.embeddedstore.DiskWatermarks;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.embeddedstore.RestartPolicy;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The embedded OpenSearch child process ({@code flowpipe.store.embedded.*}).
 *
 * @param httpPort HTTP port on 127.0.0.1; 0 picks a free one
 * @param transportPort transport port on 127.0.0.1; 0 picks a free one
 * @param heap the child JVM's heap (-Xms and -Xmx)
 * @param startTimeout how long to wait for the store to be ready (every primary shard started)
 * @param stopTimeout how long to wait for it to stop before killing it
 * @param classpath the child's class path (its jars); set by the start script and the build
 * @param javaHome JDK to run the child with; empty for the one running the node
 * @param niceness the child's scheduling niceness, 0 (the node's own priority) to 19: with a positive value the
 *     engine's threads run first when the two share the CPU, and the store catches up in larger bulks
 * @param jvmOptions further options for the store's JVM (GC logging, another collector, ...); one that selects a
 *     collector ({@code -XX:+Use...GC}) replaces the default G1; the heap and class path have their own settings
 * @param servesCluster in a cluster ({@code cluster-size > 1}), this node's embedded store is the one every node
 *     writes to (the others set {@code flowpipe.store.url} to it); without it a cluster node needs a URL
 * @param disk the store's disk watermarks, and how often the node looks at the disk
 * @param restart how the node starts the store again when its process dies
 */
@ConfigurationProperties(EmbeddedStoreProperties.PREFIX)
public record EmbeddedStoreProperties(
    @DefaultValue("9200") int httpPort,
    @DefaultValue("9300") int transportPort,
    @DefaultValue("1GB") DataSize heap,
    @DefaultValue("90s") Duration startTimeout,
    @DefaultValue("15s") Duration stopTimeout,
    String classpath,
    String javaHome,
    @DefaultValue("10") int niceness,
    List<String> jvmOptions,
    @DefaultValue("false") boolean servesCluster,
    @DefaultValue DiskProperties disk,
    @DefaultValue RestartProperties restart) {

  /** The keys' prefix: the node's own keys beside the store connection's ({@code flowpipe.store.*}). */
  public static final String PREFIX = "flowpipe.store.embedded";

  private static final String E = PREFIX + ".";

  public EmbeddedStoreProperties {
    Check.port(E + "http-port", httpPort, true);
    Check.port(E + "transport-port", transportPort, true);
    if (heap == null || heap.toMegabytes() < 256) {
      throw new IllegalArgumentException(E + "heap must be at least 256MB, was " + heap);
    }
    Check.positive(E + "start-timeout", startTimeout);
    Check.positive(E + "stop-timeout", stopTimeout);
    EmbeddedSearchStore.checkNiceness(E + "niceness", niceness);
    jvmOptions = EmbeddedSearchStore.checkJvmOptions(E, jvmOptions);
  }

  /**
   * The embedded store's disk ({@code flowpipe.store.embedded.disk.*}): OpenSearch's watermarks, which the node also
   * reads to hold the engine's writes before the store refuses them. Each is a share of the disk used ({@code 90%})
   * or a size of space left free ({@code 500mb}); all three of one kind.
   *
   * @param watermarkLow above it the store allocates no new shards to its node
   * @param watermarkHigh above it the node holds the engine's write rate at {@code flowpipe.flow-control.min-write-rate}
   * @param watermarkFloodStage above it the store refuses every write (429) until usage is back below the high watermark
   * @param checkInterval how often the node reads the free space of the store's file system
   */
  public record DiskProperties(
      @DefaultValue(DiskWatermarks.DEFAULT_LOW) String watermarkLow,
      @DefaultValue(DiskWatermarks.DEFAULT_HIGH) String watermarkHigh,
      @DefaultValue(DiskWatermarks.DEFAULT_FLOOD_STAGE) String watermarkFloodStage,
      @DefaultValue("1s") Duration checkInterval) {

    private static final String D = "flowpipe.store.embedded.disk.";

    public DiskProperties {
      watermarks(watermarkLow, watermarkHigh, watermarkFloodStage); // fails naming the key
      Check.positive(D + "check-interval", checkInterval);
    }

    /** The validated watermarks. */
    public DiskWatermarks watermarks() {
      return watermarks(watermarkLow, watermarkHigh, watermarkFloodStage);
    }

    private static DiskWatermarks watermarks(String low, String high, String floodStage) {
      return DiskWatermarks.parse(D, low, high, floodStage);
    }
  }

  /**
   * Restarting a dead embedded store ({@code flowpipe.store.embedded.restart.*}), on the same data directory and ports.
   *
   * @param maxAttempts restarts tried in a row before the node gives up and reports the store DOWN (0: never restart)
   * @param backoff wait before the first restart; doubled before each further one
   * @param maxBackoff longest wait between restarts
   * @param resetAfter a restarted store that stayed up this long has its attempts counted anew
   */
  public record RestartProperties(
      @DefaultValue(RestartPolicy.DEFAULT_MAX_ATTEMPTS + "") int maxAttempts,
      @DefaultValue(RestartPolicy.DEFAULT_BACKOFF_SECONDS + "s") Duration backoff,
      @DefaultValue(RestartPolicy.DEFAULT_MAX_BACKOFF_SECONDS + "s") Duration maxBackoff,
      @DefaultValue(RestartPolicy.DEFAULT_RESET_AFTER_MINUTES + "m") Duration resetAfter) {

    private static final String R = "flowpipe.store.embedded.restart.";

    public RestartProperties {
      RestartPolicy.of(R, maxAttempts, backoff, maxBackoff, resetAfter); // the policy's rules, failing naming the key
    }

    public RestartPolicy policy() {
      return RestartPolicy.of(R, maxAttempts, backoff, maxBackoff, resetAfter);
    }
  }
}
