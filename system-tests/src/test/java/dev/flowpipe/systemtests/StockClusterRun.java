package dev.flowpipe.systemtests;

import dev.flowpipe.schema.store.SearchStore;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the stock-cluster tests share: the crash suite's mixed load (deploy, instances of three models, workers that
 * complete and fail jobs, incidents raised and resolved, variables, cancellations) through one broker's gateway, and
 * the crash suite's check at its end: the read model against one clean pass over the engine's own records (every
 * broker's {@link RecordFileExporter}) and against what the clients were told.
 */
final class StockClusterRun {

  /** A light load: the crash suite's test rates. */
  static final CrashLoad.Rates LIGHT = new CrashLoad.Rates(6, 6, 0.5);

  private final StockCluster stock;
  private final SearchStore store;
  private final String storeUrl;
  private final CrashSettings settings;
  final ClientOracle oracle = new ClientOracle();
  final CrashTimeline timeline = new CrashTimeline();
  private final CrashLoad load;

  StockClusterRun(StockCluster stock, SearchStore store, String storeUrl, URI gateway, int kills, long seed) {
    this.stock = stock;
    this.store = store;
    this.storeUrl = storeUrl;
    this.settings = new CrashSettings(kills, stock.partitions(), seed, Duration.ZERO, Duration.ZERO, Duration.ZERO,
        LIGHT, List.of());
    this.load = new CrashLoad(gateway, store, stock.indexPrefix(), LIGHT, seed, oracle);
  }

  void begin() throws InterruptedException {
    load.begin();
  }

  /** Ends the load (workers until quiet), then runs the crash suite's check. */
  CrashReport finishAndCheck(String scenario) throws Exception {
    load.finishAndClose(System.out::println);
    CrashCheck.Outcome outcome = CrashCheck.run(store, storeUrl, stock.indexPrefix(), stock.recordDirectories(),
        stock.partitions(), oracle, stock::acknowledged, System.out::println);
    return CrashReport.of(scenario, settings, timeline, oracle, load.heldBack(), outcome, true);
  }

  /** Commands the cluster refused with RESOURCE_EXHAUSTED, by kind of command. */
  @SuppressWarnings("unchecked")
  static Map<String, Long> refusals(CrashReport report) {
    Map<String, Long> errors = (Map<String, Long>) report.load().get("errors");
    return errors.entrySet().stream().filter(e -> e.getKey().endsWith(" RESOURCE_EXHAUSTED"))
        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
  }

  void closeLoad() {
    load.close();
  }
}
