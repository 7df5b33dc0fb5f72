package dev.flowpipe.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.DelayingProxy;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.benchmarks.report.Figures;
import dev.flowpipe.benchmarks.report.ReportPages;
import dev.flowpipe.benchmarks.prometheus.PrometheusText;
import dev.flowpipe.benchmarks.load.PendingProbes;
import dev.flowpipe.benchmarks.scenario.availability.AvailabilityRun;
import dev.flowpipe.benchmarks.scenario.overhead.Overhead;
import dev.flowpipe.benchmarks.scenario.overhead.InterleavedOverhead;
import dev.flowpipe.benchmarks.scenario.baseline.Baseline;
import dev.flowpipe.benchmarks.scenario.baseline.BulkDelaySweep;
import dev.flowpipe.benchmarks.scenario.exporter.ExporterThroughput;
import dev.flowpipe.benchmarks.scenario.exporter.ExporterThroughputRun;
import dev.flowpipe.benchmarks.scenario.exporter.ExporterSlowLink;
import dev.flowpipe.benchmarks.scenario.store.RefreshLayout;
import dev.flowpipe.benchmarks.scenario.store.StoreSettingsAB;
import dev.flowpipe.benchmarks.scenario.ramp.ScalingRamp;
import dev.flowpipe.benchmarks.scenario.network.SlowNetwork;
import dev.flowpipe.benchmarks.scenario.importer.ImportRestartSettings;
import dev.flowpipe.benchmarks.scenario.importer.LegacyAvailability;
import dev.flowpipe.benchmarks.scenario.importer.LegacyAvailabilitySettings;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness in miniature, so it cannot rot: a tiny exporter-throughput run on a real store, a tiny slow-link run
 * through the delaying proxy, and the report math.
 */
@ExtendWith(SharedOpenSearch.class)
class ScenarioSmokeTest {

  @Test
  void aTinyExporterThroughputRunWritesEveryDocumentAndReportsARate(EmbeddedSearchStore node, SearchStore store) {
    String prefix = SharedOpenSearch.uniquePrefix();

    var result = ExporterThroughput.run(node.url(), prefix, 200, 100);

    assertThat(result.records()).isEqualTo(200 * 13);
    assertThat(result.recordsPerSecond()).isPositive();
    String instances = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    store.refresh(instances);
    assertThat(store.count(instances)).isEqualTo(200);
    String elements = ReadModelIndex.FLOW_NODE_INSTANCE.indexName(prefix);
    store.refresh(elements);
    assertThat(store.count(elements)).isEqualTo(3 * 200);
  }

  @Test
  void withoutBulkRefreshTheSameRunStillWritesEveryDocument(EmbeddedSearchStore node, SearchStore store) {
    String prefix = SharedOpenSearch.uniquePrefix();

    var result = ExporterThroughput.run(node.url(), prefix, 50, 100, false);

    assertThat(result.records()).isEqualTo(50 * 13);
    String instances = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    store.refresh(instances);
    assertThat(store.count(instances)).isEqualTo(50);
  }

  @Test
  void behindASlowLinkNoRecordIsAcknowledgedSoonerThanTheRoundTripAndEveryDocumentArrives(EmbeddedSearchStore node,
      SearchStore store) throws Exception {
    URI url = URI.create(node.url());
    try (DelayingProxy proxy =
            DelayingProxy.start(new InetSocketAddress(url.getHost(), url.getPort()), Duration.ofMillis(50))) {
      String throughProxy = "http://127.0.0.1:" + proxy.port();

      var freshness = ExporterSlowLink.freshness(throughProxy, SharedOpenSearch.uniquePrefix(), 2,
          Duration.ofMillis(500), Duration.ofSeconds(1));
      String prefix = SharedOpenSearch.uniquePrefix();
      var throughput = ExporterSlowLink.throughput(throughProxy, prefix, 2, 100);

      // 50 instances/s of 13 records: 650 a second measured; each waits at least its bulk's 100 ms round trip
      assertThat(freshness.millis().count()).isEqualTo(650L);
      assertThat(freshness.millis().min()).isGreaterThanOrEqualTo(100.0);
      assertThat(freshness.bulks().meanMillis()).isNotNull();
      assertThat(throughput.recordsPerSecond()).isPositive();
      String instances = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
      store.refresh(instances);
      assertThat(store.count(instances)).isEqualTo(100);
    }
  }

  @Test
  void theSlowLinkArgumentsHaveDefaultsAndNameABadValue() {
    var defaults = ExporterSlowLink.Settings.parse(List.of());
    assertThat(defaults.roundTripsMillis()).containsExactly(0, 20, 100);
    assertThat(defaults.inFlightOrder(1)).containsExactly(1, 2);
    assertThat(defaults.inFlightOrder(2)).containsExactly(2, 1);
    assertThatThrownBy(() -> ExporterSlowLink.Settings.parse(List.of("0,far")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'0,far'");
    assertThatThrownBy(() -> ExporterSlowLink.Settings.parse(List.of("20", "1,5")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[1, 5]");
  }

  @Test
  void theSlowStoreIsTheSlowLinkAtTwentyAndOneHundredMillisWithOneTwoAndFourInFlight() {
    var settings = ExporterSlowLink.Settings.slowStore(List.of());
    assertThat(settings.roundTripsMillis()).containsExactly(20, 100);
    assertThat(settings.inFlightOrder(1)).containsExactly(1, 2, 4);
    assertThat(ExporterSlowLink.Settings.slowStore(List.of("50")).roundTripsMillis()).containsExactly(50);
    assertThat(ExporterSlowLink.Settings.slowStore(List.of("--in-flight=2", "--rounds=1")).inFlightOrder(1))
        .containsExactly(2);
  }

  @Test
  void theSlowNetworkRunsCalmAndDelayPhasesInTurnAndNamesABadArgument() {
    var defaults = SlowNetwork.Settings.parse(List.of());
    assertThat(defaults.rate()).isEqualTo(30);
    assertThat(defaults.partitions()).isEqualTo(1);
    assertThat(defaults.phases()).extracting(SlowNetwork.Phase::label, p -> p.delay().toMillis(),
            SlowNetwork.Phase::seconds)
        .containsExactly(tuple("calm", 0L, 60), tuple("100 ms", 100L, 120), tuple("calm", 0L, 60),
            tuple("250 ms", 250L, 120), tuple("calm", 0L, 60));
    var given = SlowNetwork.Settings.parse(List.of("10", "20", "PT0.05S", "15", "--partitions=3", "--payload=1KB"));
    assertThat(given.phases()).extracting(SlowNetwork.Phase::seconds).containsExactly(15, 20, 15);
    assertThat(given.load().payloadBytes()).isEqualTo(1024);
    assertThatThrownBy(() -> SlowNetwork.Settings.parse(List.of("10", "20", "0ms")))
        .hasMessageContaining("delays must be > 0");
    assertThatThrownBy(() -> SlowNetwork.Settings.parse(List.of("fast"))).hasMessageContaining("'fast'");
    assertThatThrownBy(() -> SlowNetwork.Settings.parse(List.of("--partitions=two"))).hasMessageContaining("'two'");
  }

  @Test
  void theBulkRefreshArgumentTakesOnOffOrBothAndNamesABadValue() {
    assertThat(ExporterThroughputRun.bulkRefreshModes("both")).containsExactly(true, false);
    assertThat(ExporterThroughputRun.bulkRefreshModes("off")).containsExactly(false);
    assertThatThrownBy(() -> ExporterThroughputRun.bulkRefreshModes("yes"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'yes'");
  }

  @Test
  void theAvailabilityDelaysArgumentTakesDurationsAndNamesABadOne() {
    assertThat(AvailabilityRun.availabilityDelays("100ms")).containsExactly("100ms");
    assertThat(AvailabilityRun.availabilityDelays("20ms,PT0.25S,1s")).containsExactly("20ms", "PT0.25S", "1s");
    assertThatThrownBy(() -> AvailabilityRun.availabilityDelays("100ms,soon"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'soon'");
  }

  @Test
  void theAvailabilityPageDrawsRunsOfOneDelayWithNodeSettingVariantsAndEveryDurationForm(@TempDir Path pages)
      throws Exception {
    Map<String, Object> latency = Map.of("count", 3, "p50", 120, "p90", 200, "p99", 450, "max", 500);
    Map<String, Object> variants = new LinkedHashMap<>();
    variants.put("100ms, flowpipe.exporter.index-refresh-interval=1s", latency);
    variants.put("100ms, flowpipe.exporter.index-refresh-interval=1h", latency);
    Map<String, Object> delays = new LinkedHashMap<>();
    delays.put("20ms", latency);
    delays.put("PT0.25S", latency);
    delays.put("1s", latency);

    ReportPages.availability(Map.of("probes", 3, "latencyMillisByBulkDelay", variants)).write(pages.resolve("a.html"));
    ReportPages.availability(Map.of("probes", 3, "latencyMillisByBulkDelay", delays)).write(pages.resolve("b.html"));

    assertThat(Files.readString(pages.resolve("a.html"))).contains("index-refresh-interval=1h").doesNotContain("<svg");
    assertThat(Files.readString(pages.resolve("b.html"))).contains("PT0.25S", "<svg");
    assertThat(BulkDelaySweep.seconds("PT0.25S")).isEqualTo(0.25);
    assertThat(BulkDelaySweep.seconds("100ms")).isEqualTo(0.1);
  }

  @Test
  void theScalingConfigurationsAreNodesPartitionsReplicationAndABadOneIsNamed() {
    assertThat(ScalingRamp.Config.parseAll("1/1/1, 3/3/3"))
        .containsExactly(new ScalingRamp.Config(1, 1, 1), new ScalingRamp.Config(3, 3, 3));
    assertThatThrownBy(() -> ScalingRamp.Config.parseAll("3/3")).hasMessageContaining("'3/3'");
    assertThatThrownBy(() -> ScalingRamp.Config.parseAll("2/2/3")).hasMessageContaining("2/2/3");
  }

  @Test
  void theStoreNicenessArgumentTakesZeroToNineteenAndNamesABadOne() {
    assertThat(AvailabilityRun.storeNiceness("0,10")).containsExactly(0, 10);
    assertThatThrownBy(() -> AvailabilityRun.storeNiceness("0,high"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'high'");
    assertThatThrownBy(() -> AvailabilityRun.storeNiceness("20"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 20");
  }

  @Test
  void percentilesComeFromTheHistogram() {
    Histogram histogram = new Histogram(60_000, 3);
    for (int i = 1; i <= 100; i++) {
      histogram.recordValue(i);
    }

    var p = dev.flowpipe.benchmarks.report.ReportWriter.tree(
        dev.flowpipe.benchmarks.report.Report.of(Figures.percentiles(histogram)));

    assertThat(p).containsEntry("count", 100L).containsEntry("p50", 50L).containsEntry("p99", 99L)
        .containsEntry("max", 100L);
  }

  @Test
  void readsTheExportersLatencyQuantilesFromTheHistogramsBucketsOverEveryPartition() {
    // partition 1: 10 observations at most 0.1 s, 10 more at most 0.2 s; partition 2: 20 at most 0.2 s
    String text = """
        # TYPE flowpipe_exporter_export_latency_seconds histogram
        flowpipe_exporter_export_latency_seconds_bucket{partition="1",le="0.1"} 10
        flowpipe_exporter_export_latency_seconds_bucket{partition="1",le="0.2"} 20
        flowpipe_exporter_export_latency_seconds_bucket{partition="1",le="+Inf"} 20
        flowpipe_exporter_export_latency_seconds_bucket{partition="2",le="0.1"} 0
        flowpipe_exporter_export_latency_seconds_bucket{partition="2",le="0.2"} 20
        flowpipe_exporter_export_latency_seconds_bucket{partition="2",le="+Inf"} 20
        flowpipe_exporter_export_latency_seconds_count{partition="1"} 20
        flowpipe_exporter_export_latency_seconds_max{partition="1"} 0.19
        flowpipe_exporter_export_latency_seconds_max{partition="2"} 0.2
        """;

    // 40 in all, 10 of them at most 0.1 s: the 20th lies 10 / 30 into (0.1, 0.2], the 39.6th 29.6 / 30
    assertThat(PrometheusText.exporterLatency(text))
        .isEqualTo(new dev.flowpipe.benchmarks.report.Quantiles(133L, 199L, 200L));
  }

  @Test
  void readsTheQuantilesOfOneFlushReasonOnly() {
    String text = """
        flowpipe_exporter_flush_duration_seconds_bucket{partition="1",reason="size",le="1.0"} 5
        flowpipe_exporter_flush_duration_seconds_bucket{partition="1",reason="size",le="+Inf"} 5
        flowpipe_exporter_flush_duration_seconds_bucket{partition="1",reason="delay",le="0.02"} 0
        flowpipe_exporter_flush_duration_seconds_bucket{partition="1",reason="delay",le="0.04"} 100
        flowpipe_exporter_flush_duration_seconds_bucket{partition="1",reason="delay",le="+Inf"} 100
        flowpipe_exporter_flush_duration_seconds_max{partition="1",reason="size"} 2.0
        flowpipe_exporter_flush_duration_seconds_max{partition="1",reason="delay"} 0.0395
        """;

    assertThat(PrometheusText.quantiles(text, "flowpipe_exporter_flush_duration_seconds", "reason=\"delay\""))
        .isEqualTo(new dev.flowpipe.benchmarks.report.Quantiles(30L, 40L, 40L));
  }

  @Test
  void bothIndexLayoutsTakeTheSameBulksAndKeepEveryDocument(EmbeddedSearchStore node, SearchStore store) {
    String prefix = SharedOpenSearch.uniquePrefix();
    long[] keys = {0};
    long[] position = {0};
    java.util.function.LongSupplier cpu = () -> 0L;
    for (RefreshLayout.Layout layout : RefreshLayout.Layout.values()) {
      var names = RefreshLayout.prepare(store, prefix + "-" + layout.ordinal(), layout, "1s");

      var phase = RefreshLayout.phase(store, names, layout, 1, 2, 50, java.time.Duration.ofMillis(300), cpu, keys,
          position);

      assertThat(phase.bulks()).isPositive();
      assertThat(phase.documents()).isEqualTo(phase.bulks() * 2 * 7);
      var instances = names.get(dev.flowpipe.schema.index.ReadModelIndex.PROCESS_INSTANCE);
      assertThat(store.count(instances)).as(layout + ": searchable on return").isEqualTo(phase.bulks() * 2);
      var variables = names.get(dev.flowpipe.schema.index.ReadModelIndex.VARIABLE);
      assertThat(store.count(variables)).isEqualTo(phase.bulks() * 2 * 2);
    }
  }

  @Test
  void nodeSettingVariantsGiveOneKeyValuePerValueAndNameABadArgument() {
    assertThat(AvailabilityRun.nodeSettingVariants("flowpipe.exporter.index-refresh-interval=100ms|1s"))
        .containsExactly("flowpipe.exporter.index-refresh-interval=100ms", "flowpipe.exporter.index-refresh-interval=1s");
    assertThatThrownBy(() -> AvailabilityRun.nodeSettingVariants("refresh=1s"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'refresh=1s'");
    assertThatThrownBy(() -> AvailabilityRun.nodeSettingVariants("flowpipe.exporter.bulk.delay=1s||2s"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty value");
  }

  @Test
  void signallingAProcessThatHasEndedFailsNamingTheCommand() throws Exception {
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();

    assertThatThrownBy(() -> NodeProcess.signal("-STOP", java.util.List.of(ended.pid())))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("'kill -STOP " + ended.pid() + "' failed");
  }

  @Test
  void interleavedRatiosArePairedWithinEachRoundAndSummarisedByTheirMedian() {
    var results = new java.util.LinkedHashMap<String, java.util.List<Double>>();
    results.put("ours", java.util.List.of(90.0, 50.0, 100.0));
    results.put("noop", java.util.List.of(100.0, 50.0, 200.0));
    results.put("none", java.util.List.of(100.0, 100.0, 100.0));

    var ratios = InterleavedOverhead.pairedRatios(results);

    assertThat(ratios).containsOnlyKeys("ours/noop", "ours/none", "noop/none");
    assertThat(ratios.get("ours/noop"))
        .isEqualTo(new InterleavedOverhead.Ratio(java.util.List.of(0.9, 1.0, 0.5), 0.9, 0.5, 1.0));
  }

  @Test
  void ourModesArePairedWithTheStockExporterToo() {
    var results = new java.util.LinkedHashMap<String, java.util.List<Double>>();
    results.put("ours", java.util.List.of(90.0, 120.0));
    results.put("stock", java.util.List.of(100.0, 100.0));
    results.put("stock-delay-1s", java.util.List.of(80.0, 100.0));
    results.put("noop", java.util.List.of(100.0, 150.0));

    var ratios = InterleavedOverhead.pairedRatios(results);

    assertThat(ratios).containsOnlyKeys("ours/noop", "stock/noop", "stock-delay-1s/noop", "ours/stock");
    assertThat(ratios.get("ours/stock").perRound()).isEqualTo(java.util.List.of(0.9, 1.2));
  }

  @Test
  void theStockModesRunCamundasExporterAgainstTheNodesOwnStoreInPlaceOfOurs() {
    var modes = Overhead.exporterModes(java.util.List.of("stock", "stock-delay-1s"));

    assertThat(modes.get("stock")).contains("--flowpipe.exporter.enabled=false",
        "--flowpipe.broker.additional-exporters.stock.class-name=" + Baseline.STOCK_CLASS,
        "--flowpipe.broker.additional-exporters.stock.args.url=http://127.0.0.1:${flowpipe.store.embedded.http-port}");
    assertThat(modes.get("stock")).noneMatch(a -> a.contains("bulk.delay"));
    assertThat(modes.get("stock-delay-1s")).contains("--flowpipe.broker.additional-exporters.stock.args.bulk.delay=1");
  }

  @Test
  void theInterleavedOverheadNamesABadArgumentBeforeStartingAnything() {
    assertThatThrownBy(() -> InterleavedOverhead.run(java.nio.file.Path.of("."), 0, java.util.List.of("ours"), 10, 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("were 0, 2 and 10");
    assertThatThrownBy(() -> InterleavedOverhead.run(java.nio.file.Path.of("."), 5, java.util.List.of("fast"), 10, 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'fast'");
  }

  @Test
  void storeSettingsVariantsAreIndexSettingsAndABadPairIsNamed() {
    assertThat(StoreSettingsAB.parseSettings("index.compound_format=false, index.merge.policy.segments_per_tier=30"))
        .containsExactly(java.util.Map.entry("index.compound_format", "false"),
            java.util.Map.entry("index.merge.policy.segments_per_tier", "30"));
    assertThatThrownBy(() -> StoreSettingsAB.parseSettings("index.compound_format"))
        .hasMessageContaining("'index.compound_format'");
    assertThatThrownBy(() -> StoreSettingsAB.parseSettings("cluster.routing=none"))
        .hasMessageContaining("only index settings").hasMessageContaining("'cluster.routing=none'");
    assertThatThrownBy(() -> StoreSettingsAB.parseSettings(""))
        .hasMessageContaining("expected index.setting=value");
  }

  @Test
  void aStoreSettingsVariantIsAppliedToTheSharedIndexAndARefusedOneLeavesItOpen(EmbeddedSearchStore node,
      SearchStore store) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    var names = RefreshLayout.prepare(store, prefix, RefreshLayout.Layout.SHARED, "1s");
    String index = prefix + "-read-model-v2";

    StoreSettingsAB.apply(node.url(), index, StoreSettingsAB.parseSettings("index.compound_format=false"));

    var http = java.net.http.HttpClient.newHttpClient();
    String settings = http.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create(node.url() + "/" + index + "/_settings")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    assertThat(settings).contains("\"compound_format\":\"false\"");

    assertThatThrownBy(() -> StoreSettingsAB.apply(node.url(), index,
        StoreSettingsAB.parseSettings("index.merge.policy.segments_per_tier=lots")))
        .hasMessageContaining("_settings answered 400").hasMessageContaining("lots");
    // still open and writable: the same bulks the scenario sends
    var phase = RefreshLayout.phase(store, names, RefreshLayout.Layout.SHARED, 1, 1, 50, java.time.Duration.ofMillis(200),
        () -> 0L, new long[] {0}, new long[] {0});
    assertThat(phase.documents()).isEqualTo(phase.bulks() * 7).isPositive();
  }

  @Test
  void storeSettingsRatiosArePairedWithinEachRound() {
    var a = new RefreshLayout.Phase(RefreshLayout.Layout.SHARED, 1, 1, 7, 1, 0.5, 1, 1);
    var b = new RefreshLayout.Phase(RefreshLayout.Layout.SHARED, 2, 1, 7, 1, 0.25, 1, 1);

    assertThat(StoreSettingsAB.perRoundRatios(java.util.List.of(a, b), java.util.List.of(b, a)))
        .containsExactly(0.5, 2.0);
  }

  @Test
  void theLegacyAvailabilityArgumentsHaveDefaultsAndNameABadValue() {
    var defaults = LegacyAvailabilitySettings.parse(List.of());
    assertThat(defaults.loadPerSecond()).isEqualTo(50);
    assertThat(defaults.stockDelaysSeconds()).containsExactly(1, 5);
    assertThat(defaults.probeTime()).isEqualTo(Duration.ofSeconds(120));
    var given = LegacyAvailabilitySettings.parse(List.of("--stock-delays=5", "--flowpipe.importer.page-size=500"));
    assertThat(given.stockDelaysSeconds()).containsExactly(5);
    assertThat(given.importerArguments()).containsExactly("--flowpipe.importer.page-size=500");
    assertThatThrownBy(() -> LegacyAvailabilitySettings.parse(List.of("--stock-delays=1,soon")))
        .hasMessageContaining("--stock-delays").hasMessageContaining("'soon'");
    assertThatThrownBy(() -> LegacyAvailabilitySettings.parse(List.of("--stock-delays=0")))
        .hasMessageContaining("--stock-delays").hasMessageContaining("[0]");
    assertThatThrownBy(() -> LegacyAvailabilitySettings.parse(List.of("--rates=5")))
        .hasMessageContaining("unknown argument --rates=5");
    assertThatThrownBy(() -> LegacyAvailabilitySettings.parse(List.of("50")))
        .hasMessageContaining("'50'");
  }

  @Test
  void theImportRestartArgumentsHaveDefaultsAndNameABadValue() {
    var defaults = ImportRestartSettings.parse(List.of());
    assertThat(defaults.stops()).containsExactly("TERM", "KILL");
    assertThat(defaults.downtime()).isEqualTo(Duration.ofSeconds(30));
    assertThat(defaults.loadPerSecond()).isEqualTo(50);
    assertThatThrownBy(() -> ImportRestartSettings.parse(List.of("--stops=TERM,HUP")))
        .hasMessageContaining("--stops").hasMessageContaining("'TERM,HUP'");
    assertThatThrownBy(() -> ImportRestartSettings.parse(List.of("--downtime=a while")))
        .hasMessageContaining("--downtime").hasMessageContaining("'a while'");
    assertThatThrownBy(() -> ImportRestartSettings.parse(List.of("--partitions=0")))
        .hasMessageContaining("--partitions").hasMessageContaining("0");
  }

  @Test
  void onePollerAsksEachPlaceForAllPendingProbesAtOnceAndCountsTheOnesNeverSeen() throws Exception {
    List<List<Long>> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
    long ended = System.currentTimeMillis() - 100;
    var everywhere = new PendingProbes.Place("everywhere", keys -> {
      asked.add(keys);
      return keys.stream().collect(java.util.stream.Collectors.toMap(k -> k, k -> ended));
    });
    var notTwo = new PendingProbes.Place("not two", keys -> keys.stream().filter(k -> k != 2)
        .collect(java.util.stream.Collectors.toMap(k -> k, k -> ended)));
    var probes = new PendingProbes(List.of(everywhere, notTwo), 300);
    probes.add(1);
    probes.add(2);

    probes.close();

    var byKey = probes.finished().stream()
        .collect(java.util.stream.Collectors.toMap(PendingProbes.Probe::key, PendingProbes.Probe::millis));
    assertThat(byKey.get(1L).get("everywhere")).isGreaterThanOrEqualTo(100);
    assertThat(byKey.get(1L).get("not two")).isGreaterThanOrEqualTo(100);
    assertThat(byKey.get(2L).get("not two")).isEqualTo(-1);
    assertThat(asked).anyMatch(keys -> keys.size() == 2);
  }

  @Test
  void theImportersShareIsImportedMinusStockRawPerProbeAndUnseenProbesAreCounted() {
    var probes = List.of(
        new PendingProbes.Probe(1, Map.of(LegacyAvailability.OURS, 90L, LegacyAvailability.STOCK_RAW, 1_200L,
            LegacyAvailability.IMPORTED, 2_000L)),
        new PendingProbes.Probe(2, Map.of(LegacyAvailability.OURS, 110L, LegacyAvailability.STOCK_RAW, 1_000L,
            LegacyAvailability.IMPORTED, -1L)));

    var phase = LegacyAvailability.summarise(1, probes, "1.0", "2.0");

    assertThat(phase.importerShare().count()).isEqualTo(1);
    assertThat(phase.importerShare().p50()).isEqualTo(800);
    assertThat(phase.notSeen()).containsEntry(LegacyAvailability.IMPORTED, 1L)
        .containsEntry(LegacyAvailability.OURS, 0L);
    assertThat(phase.ours().count()).isEqualTo(2);
    assertThat(phase.publishedCamunda85Seconds()).isEqualTo(3.68);
  }
}
