package dev.flowpipe.importer;

import dev.flowpipe.importer.config.ImporterSettings;
import dev.flowpipe.importer.cursor.CursorStore;
import dev.flowpipe.importer.source.RawRecordIndices;
import dev.flowpipe.importer.source.Sequences;
import dev.flowpipe.schema.index.MigrationProgress;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The importer: connects to the source and target stores (waiting for them as long as it takes), makes sure the read
 * model's indices and the cursor index exist, finds the partitions that have raw records, and runs one
 * {@link PartitionImport} per partition on a thread of its own, so partitions import in parallel. New partitions are
 * looked for every {@code discovery-interval}.
 */
public final class Importer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Importer.class);

  private final ImporterSettings settings;
  private final Function<StoreConnection, SearchStore> connector;
  private final InstantSource clock;
  private final MeterRegistry registry;
  private final Pause pause;
  private final Pause.Wakeable closing = Pause.wakeable();
  private final Map<Integer, PartitionImport> partitions = new ConcurrentSkipListMap<>();
  private final List<Thread> threads = new ArrayList<>();
  private final Thread supervisor;
  private volatile boolean running = true;
  private volatile boolean discovered;
  private SearchStore source;
  private SearchStore target;

  private Importer(ImporterSettings settings, Function<StoreConnection, SearchStore> connector, InstantSource clock,
      MeterRegistry registry, Pause pause) {
    this.settings = settings;
    this.connector = connector;
    this.clock = clock;
    this.registry = registry;
    this.pause = pause == null ? closing : pause;
    this.supervisor = Thread.ofPlatform().name("importer-supervisor").daemon().unstarted(this::supervise);
  }

  /** Starts importing in the background. */
  public static Importer start(ImporterSettings settings, MeterRegistry registry) {
    return start(settings, SearchStoreConnector::connect, InstantSource.system(), registry);
  }

  public static Importer start(ImporterSettings settings, Function<StoreConnection, SearchStore> connector,
      InstantSource clock, MeterRegistry registry) {
    return start(settings, connector, clock, registry, null);
  }

  /** @param pause how threads wait between rounds; null: a wait that closing cuts short */
  public static Importer start(ImporterSettings settings, Function<StoreConnection, SearchStore> connector,
      InstantSource clock, MeterRegistry registry, Pause pause) {
    Importer importer = new Importer(settings, connector, clock, registry, pause);
    importer.supervisor.start();
    return importer;
  }

  private void supervise() {
    long backoffMillis = settings.writer().retryBackoff().toMillis();
    while (running) {
      try {
        if (target == null) {
          connect();
        }
        for (int partitionId : partitionsInSource()) {
          partitions.computeIfAbsent(partitionId, this::startPartition);
        }
        discovered = true;
        backoffMillis = settings.writer().retryBackoff().toMillis();
        pause(settings.discoveryInterval().toMillis());
      } catch (RuntimeException e) {
        LOG.warn("importer: {}; trying again in {} ms", e.getMessage(), backoffMillis);
        pause(backoffMillis);
        backoffMillis = Math.min(settings.writer().maxRetryBackoff().toMillis(), backoffMillis * 2);
      }
    }
  }

  private void connect() {
    SearchStore connectedSource = connector.apply(settings.source());
    SearchStore connectedTarget =
        settings.target().equals(settings.source()) ? connectedSource : connector.apply(settings.target());
    try {
      // a migration's lease and progress read the importer's clock, not the system's
      new SchemaManager(connectedTarget, settings.indexPrefix(), settings.writer().indexLayout(),
          new MigrationProgress(), clock.withZone(ZoneOffset.UTC)).ensureSchema();
      new CursorStore(connectedTarget, settings.indexPrefix()).ensureIndex();
    } catch (RuntimeException e) {
      connectedSource.close();
      connectedTarget.close();
      throw e;
    }
    source = connectedSource;
    target = connectedTarget;
    LOG.info("importing raw records {}_* from {} into the read model {} at {}", settings.sourcePrefix(),
        settings.source().url(), settings.indexPrefix(), settings.target().url());
  }

  /**
   * The partitions with raw records, found by their sequences ({@code partitionId << 51}): the lowest sequence at or
   * above each partition's start names the next partition that has records.
   */
  private List<Integer> partitionsInSource() {
    List<String> patterns = new RawRecordIndices(settings.sourcePrefix()).patterns(PartitionImport.VALUE_TYPES);
    List<Integer> found = new ArrayList<>();
    int next = 1;
    while (true) {
      SearchHits hits = source.search(new SearchQuery(patterns,
          List.of(new Criterion.Range("sequence", null, Sequences.start(next), null, null)),
          List.of(SortField.ascending("sequence")), 0, 1, List.of(), List.of()));
      if (hits.hits().isEmpty() || !(hits.hits().getFirst().source().get("sequence") instanceof Number sequence)) {
        return found;
      }
      int partitionId = Sequences.partition(sequence.longValue());
      found.add(partitionId);
      next = partitionId + 1;
    }
  }

  private PartitionImport startPartition(int partitionId) {
    PartitionImport partition = new PartitionImport(partitionId, source, target, settings, clock, registry);
    Thread thread = Thread.ofPlatform().name("importer-partition-" + partitionId).daemon().start(() -> run(partition));
    synchronized (threads) {
      threads.add(thread);
    }
    return partition;
  }

  private void run(PartitionImport partition) {
    while (running) {
      long waitMillis;
      try {
        waitMillis = partition.step();
      } catch (RuntimeException e) {
        if (!running) {
          return; // closing interrupted a request
        }
        // not a store outage (those back off inside the step): a defect or a refused request; keep trying, loudly
        LOG.error("partition {}: import step failed", partition.partitionId(), e);
        waitMillis = settings.writer().maxRetryBackoff().toMillis();
      }
      if (waitMillis > 0) {
        pause(waitMillis);
      }
    }
  }

  private void pause(long millis) {
    try {
      pause.pause(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  /** Whether partitions have been looked for and every one found has imported everything searchable. */
  public boolean caughtUp() {
    return discovered && !partitions.isEmpty() && partitions.values().stream().allMatch(PartitionImport::caughtUp);
  }

  /** The partitions being imported. */
  public Map<Integer, PartitionImport> partitions() {
    return Map.copyOf(partitions);
  }

  @Override
  public void close() {
    running = false;
    closing.wakeAll();
    supervisor.interrupt();
    List<Thread> all;
    synchronized (threads) {
      all = List.copyOf(threads);
    }
    all.forEach(Thread::interrupt);
    for (Thread thread : all) {
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      supervisor.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (source != null) {
      source.close();
    }
    if (target != null && target != source) {
      target.close();
    }
  }
}
