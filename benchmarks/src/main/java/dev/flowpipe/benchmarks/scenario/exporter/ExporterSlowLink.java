package dev.flowpipe.benchmarks.scenario.exporter;

import dev.flowpipe.benchmarks.cli.ScenarioArguments;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.harness.ExporterOnActor;
import dev.flowpipe.benchmarks.report.Figures;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.testsupport.DelayingProxy;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.writer.config.WriterSettings;
import io.camunda.zeebe.protocol.record.Record;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;

/**
 * Whether writing several bulks at once ({@code bulks-in-flight}) pays off when the store is far away. Our exporter, on
 * an actor thread as the broker runs it ({@link ExporterOnActor}), fed the synthetic one-task instances of
 * {@link ExporterThroughput} (13 records each), writes into the embedded OpenSearch through a {@link DelayingProxy}
 * that adds a round trip (0 ms: the same proxy without delay). Per round, per round trip, each in-flight value in turn
 * (the order reversed every other round, so none always runs first), each run a fresh exporter on a fresh index prefix:
 * <ul>
 *   <li>freshness: records at a steady {@value #INSTANCES_PER_SECOND} instances/s, bulk delay 100 ms, a warm-up, then
 *       per record of the measured window the time from its {@code export()} call to the acknowledgement of its
 *       position;
 *   <li>throughput: a fixed number of instances as fast as the exporter takes them, first {@code export()} to the
 *       last acknowledgement.
 * </ul>
 */
public final class ExporterSlowLink {

  public static final int INSTANCES_PER_SECOND = 50;
  public static final int RECORDS_PER_INSTANCE = 13;
  public static final Duration WARM_UP = Duration.ofSeconds(5);

  private ExporterSlowLink() {}

  /** The command's arguments: round trips (ms), in-flight values, rounds, measured seconds, throughput instances. */
  public record Settings(List<Integer> roundTripsMillis, List<Integer> inFlight, int rounds, int measureSeconds,
      int throughputInstances) {

    public Settings {
      if (roundTripsMillis.isEmpty() || roundTripsMillis.stream().anyMatch(ms -> ms < 0)) {
        throw new IllegalArgumentException("exporter-slow-link: round trips must be ms >= 0, were " + roundTripsMillis);
      }
      if (inFlight.isEmpty()
          || inFlight.stream().anyMatch(n -> n < 1 || n > WriterSettings.MAX_BULKS_IN_FLIGHT)) {
        throw new IllegalArgumentException("exporter-slow-link: in-flight values must be 1 to "
            + WriterSettings.MAX_BULKS_IN_FLIGHT + ", were " + inFlight);
      }
      if (rounds < 1 || measureSeconds < 1 || throughputInstances < 1) {
        throw new IllegalArgumentException("exporter-slow-link: rounds, measure seconds and throughput instances must "
            + "be positive, were " + rounds + ", " + measureSeconds + ", " + throughputInstances);
      }
    }

    /** The arguments' names, in the order {@code benchmarks/run} reads them positionally. */
    public static final List<String> NAMES =
        List.of("round-trips", "in-flight", "rounds", "measure-seconds", "throughput-instances");

    /** {@code exporter-slow-link}'s arguments: round trips 0, 20 and 100 ms and 1 and 2 bulks in flight unless given. */
    public static Settings parse(List<String> args) {
      return parse("exporter-slow-link", args, "0,20,100", "1,2");
    }

    /**
     * {@code slow-store}'s arguments: this scenario with the store 20 and 100 ms of round trip away and 1, 2 and 4
     * bulks in flight unless given.
     */
    public static Settings slowStore(List<String> args) {
      return parse("slow-store", args, "20,100", "1,2," + WriterSettings.MAX_BULKS_IN_FLIGHT);
    }

    private static Settings parse(String scenario, List<String> args, String roundTrips, String inFlight) {
      ScenarioArguments a = ScenarioArguments.positional(scenario, args, NAMES, null);
      Settings settings = new Settings(numbers(a.text("round-trips", roundTrips), roundTrips),
          numbers(a.text("in-flight", inFlight), inFlight), a.integer("rounds", 2), a.integer("measure-seconds", 30),
          a.integer("throughput-instances", 10_000));
      a.requireAllKnown(NAMES);
      return settings;
    }

    private static List<Integer> numbers(String value, String fallback) {
      try {
        return Arrays.stream(value.split(",")).map(String::trim).map(Integer::valueOf).toList();
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("exporter-slow-link: '" + value + "' is not a list of numbers like "
            + fallback, e);
      }
    }

    /** The in-flight values in the order of a round: as given in odd rounds, reversed in even ones. */
    public List<Integer> inFlightOrder(int round) {
      List<Integer> order = new ArrayList<>(inFlight);
      if (round % 2 == 0) {
        java.util.Collections.reverse(order);
      }
      return order;
    }
  }

  /** One round trip and in-flight value in one round: freshness (ms) and throughput, with the exporter's bulks. */
  public record Run(int round, int roundTripMillis, int inFlight, AcknowledgementMillis freshnessMillis,
      Bulks freshnessBulks, double recordsPerSecond, double throughputSeconds, Bulks throughputBulks) {}

  /** export() to acknowledgement over the measured window, in milliseconds. */
  public record AcknowledgementMillis(long count, double min, double p50, double p90, double p99, double max) {}

  /**
   * The exporter's bulks: how many, mean documents, mean and largest time to write one; every field absent (and left
   * out of the JSON) when the exporter wrote none, the mean size absent when its meter is missing.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Bulks(Long count, Double meanDocuments, Double meanMillis, Double maxMillis) {}

  public static Report run(Path root, Settings settings) throws Exception {
    String loadBefore = loadAverage();
    System.out.println("load average before: " + loadBefore);
    Map<Integer, Double> requestMillis = new LinkedHashMap<>();
    List<Run> runs = new ArrayList<>();
    try (EmbeddedSearchStore store =
            EmbeddedSearchStore.start(ScratchDirectories.create("bench-store"), EmbeddedStores.settings(root))) {
      URI storeUrl = URI.create(store.url());
      InetSocketAddress target = new InetSocketAddress(storeUrl.getHost(), storeUrl.getPort());
      Map<Integer, DelayingProxy> proxies = new LinkedHashMap<>();
      try {
        for (int roundTrip : settings.roundTripsMillis()) {
          DelayingProxy proxy = DelayingProxy.start(target, Duration.ofNanos(roundTrip * 1_000_000L / 2));
          proxies.put(roundTrip, proxy);
          requestMillis.put(roundTrip, medianRequestMillis(url(proxy)));
          System.out.printf(Locale.ROOT, "round trip %d ms: proxy on port %d, a store request takes %.1f ms%n",
              roundTrip, proxy.port(), requestMillis.get(roundTrip));
        }
        System.out.println("warm-up: 2000 instances straight into the store");
        ExporterThroughput.run(store.url(), "slow-link-warm-up", 2_000, 1000);
        for (int round = 1; round <= settings.rounds(); round++) {
          for (int roundTrip : settings.roundTripsMillis()) {
            String url = url(proxies.get(roundTrip));
            Map<Integer, Freshness> freshness = new LinkedHashMap<>();
            for (int inFlight : settings.inFlightOrder(round)) {
              freshness.put(inFlight, freshness(url, prefix("f", round, roundTrip, inFlight), inFlight, WARM_UP,
                  Duration.ofSeconds(settings.measureSeconds())));
              System.out.printf(Locale.ROOT, "round %d, round trip %d ms, %d in flight: freshness %s ms, bulks %s%n",
                  round, roundTrip, inFlight, freshness.get(inFlight).millis(), freshness.get(inFlight).bulks());
            }
            for (int inFlight : settings.inFlightOrder(round)) {
              Throughput throughput = throughput(url, prefix("t", round, roundTrip, inFlight), inFlight,
                  settings.throughputInstances());
              System.out.printf(Locale.ROOT, "round %d, round trip %d ms, %d in flight: %.0f records/s (%.1f s), "
                  + "bulks %s%n", round, roundTrip, inFlight, throughput.recordsPerSecond(), throughput.seconds(),
                  throughput.bulks());
              Freshness f = freshness.get(inFlight);
              runs.add(new Run(round, roundTrip, inFlight, f.millis(), f.bulks(),
                  Figures.round3(throughput.recordsPerSecond()), Figures.round3(throughput.seconds()),
                  throughput.bulks()));
            }
          }
        }
      } finally {
        proxies.values().forEach(DelayingProxy::close);
      }
    }
    String loadAfter = loadAverage();
    System.out.println("load average after: " + loadAfter);
    printTable(settings, runs);
    Report report = Report.describing("exporter behind a slow link: our exporter in-process (one actor thread, scheduled tasks on "
        + "time), synthetic one-task instances (13 records, 6 documents each), default bulk settings (delay 100 ms, "
        + "size 1000, bulk refresh on), writing through a delaying TCP proxy into the embedded OpenSearch (1 GB heap) "
        + "on the same machine; per round, round trip and in-flight value: freshness at " + INSTANCES_PER_SECOND
        + " instances/s (export() to acknowledgement, " + WARM_UP.toSeconds() + " s warm-up, "
        + settings.measureSeconds() + " s measured), then throughput (" + settings.throughputInstances()
        + " instances as fast as taken); in-flight order reversed every other round");
    report.body().typed("settings", settings).typed("storeRequestMillisByRoundTrip", requestMillis)
        .text("loadAverageBefore", loadBefore).text("loadAverageAfter", loadAfter).typed("runs", runs);
    return report;
  }

  private static String prefix(String phase, int round, int roundTrip, int inFlight) {
    return "slow-" + phase + "-r" + round + "-rtt" + roundTrip + "-if" + inFlight;
  }

  private static String url(DelayingProxy proxy) {
    return "http://127.0.0.1:" + proxy.port();
  }

  private static Map<String, Object> arguments(String url, String prefix, int inFlight) {
    return Map.of(WriterSettings.URL, url, WriterSettings.INDEX_PREFIX, prefix,
        WriterSettings.BULK_DELAY, "100ms", WriterSettings.BULKS_IN_FLIGHT, inFlight);
  }

  public record Freshness(AcknowledgementMillis millis, Bulks bulks) {}

  public record Throughput(double recordsPerSecond, double seconds, Bulks bulks) {}

  /** Records at a steady pace for the warm-up and the measured window; export() to acknowledgement of each. */
  public static Freshness freshness(String url, String prefix, int inFlight, Duration warmUp, Duration measure)
      throws Exception {
    Duration period = Duration.ofNanos(1_000_000_000L / (INSTANCES_PER_SECOND * RECORDS_PER_INSTANCE));
    long warmUpRecords = warmUp.toNanos() / period.toNanos();
    long total = warmUpRecords + measure.toNanos() / period.toNanos();
    AcknowledgementLatency latency = new AcknowledgementLatency(warmUpRecords + 1, total);
    try (ExporterOnActor exporter = new ExporterOnActor(arguments(url, prefix, inFlight), latency)) {
      SyntheticRecords records = new SyntheticRecords();
      ScheduledFuture<?> feed = exporter.atFixedRate(() -> {
        if (records.position() < total) {
          Record<?> record = records.next();
          latency.exported(record.getPosition());
          exporter.export(record);
        }
      }, period);
      try {
        exporter.awaitAcknowledged(total, warmUp.plus(measure).plusMinutes(2));
      } finally {
        feed.cancel(false);
      }
      return new Freshness(latency.percentiles(), bulks(exporter.meters()));
    }
  }

  /** {@code instances} instances as fast as the exporter takes them: first export() to the last acknowledgement. */
  public static Throughput throughput(String url, String prefix, int inFlight, int instances) throws Exception {
    long total = (long) instances * RECORDS_PER_INSTANCE;
    AtomicLong lastAcknowledged = new AtomicLong();
    try (ExporterOnActor exporter = new ExporterOnActor(arguments(url, prefix, inFlight), (position, now) -> {
      if (position >= total) {
        lastAcknowledged.compareAndSet(0, now);
      }
    })) {
      SyntheticRecords records = new SyntheticRecords();
      long start = System.nanoTime();
      // one instance per task, so the exporter's timer gets the actor between instances as it would in a broker
      exporter.execute(new Runnable() {
        @Override
        public void run() {
          for (int i = 0; i < RECORDS_PER_INSTANCE; i++) {
            exporter.export(records.next());
          }
          if (records.position() < total) {
            exporter.execute(this);
          }
        }
      });
      exporter.awaitAcknowledged(total, Duration.ofMinutes(10));
      double seconds = (lastAcknowledged.get() - start) / 1e9;
      return new Throughput(total / seconds, seconds, bulks(exporter.meters()));
    }
  }

  /** The exporter's bulks so far, from its meters: how many, mean documents, mean and largest time to write one. */
  public static Bulks bulks(MeterRegistry meters) {
    long count = 0;
    double totalMillis = 0;
    double maxMillis = 0;
    for (Timer timer : meters.find("flowpipe.exporter.flush.duration").timers()) {
      count += timer.count();
      totalMillis += timer.totalTime(TimeUnit.MILLISECONDS);
      maxMillis = Math.max(maxMillis, timer.max(TimeUnit.MILLISECONDS));
    }
    if (count == 0) {
      return new Bulks(null, null, null, null); // the exporter's meters were renamed, or nothing was written
    }
    DistributionSummary size = meters.find("flowpipe.exporter.bulk.size").summary();
    return new Bulks(count, size == null ? null : Math.round(size.mean() * 10) / 10.0,
        Math.round(totalMillis / count * 10) / 10.0, Math.round(maxMillis * 10) / 10.0);
  }

  /** The export() time of each record in a window of positions, and its time to acknowledgement once known. */
  public static final class AcknowledgementLatency implements ExporterOnActor.AcknowledgementListener {
    private final long first;
    private final long last;
    private final AtomicLongArray exportedAt;
    private final Histogram micros = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    private long acknowledgedUpTo;

    public AcknowledgementLatency(long first, long last) {
      this.first = first;
      this.last = last;
      this.exportedAt = new AtomicLongArray((int) (last - first + 1));
    }

    /** Just before the record at {@code position} is handed to export(). */
    public void exported(long position) {
      if (position >= first && position <= last) {
        exportedAt.set((int) (position - first), System.nanoTime());
      }
    }

    @Override
    public synchronized void acknowledged(long position, long nanoTime) {
      for (long p = Math.max(acknowledgedUpTo + 1, first); p <= Math.min(position, last); p++) {
        micros.recordValue(Math.max(0, (nanoTime - exportedAt.get((int) (p - first))) / 1000));
      }
      acknowledgedUpTo = Math.max(acknowledgedUpTo, position);
    }

    synchronized AcknowledgementMillis percentiles() {
      return new AcknowledgementMillis(micros.getTotalCount(), millis(micros.getMinValue()),
          millis(micros.getValueAtPercentile(50)), millis(micros.getValueAtPercentile(90)),
          millis(micros.getValueAtPercentile(99)), millis(micros.getMaxValue()));
    }

    private static double millis(long micros) {
      return Math.round(micros / 100.0) / 10.0;
    }
  }

  /** ExporterThroughput's one-task instances one after another, positions from 1. */
  private static final class SyntheticRecords {
    private final Deque<Record<?>> pending = new ArrayDeque<>();
    private int instance;
    private long position;

    public Record<?> next() {
      if (pending.isEmpty()) {
        pending.addAll(ExporterThroughput.instanceRecords(instance++, position));
      }
      Record<?> record = pending.removeFirst();
      position = record.getPosition();
      return record;
    }

    public long position() {
      return position;
    }
  }

  /** The median time of a few requests to the store's root through the proxy, after one that opens the connection. */
  private static double medianRequestMillis(String url) throws IOException, InterruptedException {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/")).build();
      http.send(request, HttpResponse.BodyHandlers.discarding());
      double[] millis = new double[5];
      for (int i = 0; i < millis.length; i++) {
        long start = System.nanoTime();
        http.send(request, HttpResponse.BodyHandlers.discarding());
        millis[i] = (System.nanoTime() - start) / 1e6;
      }
      Arrays.sort(millis);
      return Math.round(millis[millis.length / 2] * 10) / 10.0;
    }
  }

  /** The 1, 5 and 15 minute load averages, as uptime prints them. */
  public static String loadAverage() throws IOException {
    String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
    return fields[0] + ", " + fields[1] + ", " + fields[2];
  }

  private static void printTable(Settings settings, List<Run> runs) {
    System.out.println("round trip | in flight | freshness p50 / p90 / p99 / max ms, per round | records/s, per round");
    for (int roundTrip : settings.roundTripsMillis()) {
      for (int inFlight : settings.inFlight()) {
        List<String> freshness = new ArrayList<>();
        List<String> throughput = new ArrayList<>();
        for (Run run : runs) {
          if (run.roundTripMillis() == roundTrip && run.inFlight() == inFlight) {
            AcknowledgementMillis f = run.freshnessMillis();
            freshness.add(f.p50() + " / " + f.p90() + " / " + f.p99() + " / " + f.max());
            throughput.add(String.format(Locale.ROOT, "%.0f", run.recordsPerSecond()));
          }
        }
        System.out.printf("%6d ms | %9d | %s | %s%n", roundTrip, inFlight, String.join("; ", freshness),
            String.join("; ", throughput));
      }
    }
  }
}
