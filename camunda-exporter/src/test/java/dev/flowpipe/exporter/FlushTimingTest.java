package dev.flowpipe.exporter;

import static dev.flowpipe.exporter.Records.processInstance;
import static io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent.ELEMENT_ACTIVATING;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.exporter.config.ExporterConfiguration;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.embedded.EmbeddedSearchStore;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bulk delay holds on both paths: no record waits longer than the delay plus the time of the bulk that carries
 * it (and, on a busy path, of the one still in flight before it), whether records keep arriving (the export path
 * flushes; the timer never gets a turn here) or the path is quiet (only the timer flushes). Bounds are the configured
 * delay plus the longest bulk measured in the same run (the exporter's flush timer), plus a scheduling margin for two
 * shared cores; no absolute speed is asserted.
 */
@ExtendWith(SharedOpenSearch.class)
class FlushTimingTest {

  private static final long MARGIN_MS = 60;

  private final EmbeddedSearchStore node;

  FlushTimingTest(EmbeddedSearchStore node) {
    this.node = node;
  }

  private ExporterTestContext context;

  /** The longest bulk so far, from the exporter's own flush timer. */
  private long longestFlushMillis() {
    return (long) context.getMeterRegistry().find("flowpipe.exporter.flush.duration").timers().stream()
        .mapToDouble(timer -> timer.max(TimeUnit.MILLISECONDS)).max().orElse(0);
  }

  private ReadModelExporter open(ExporterTestController controller, String delay) {
    Map<String, Object> args = new HashMap<>();
    args.put(ExporterConfiguration.URL, node.url());
    args.put(ExporterConfiguration.INDEX_PREFIX, SharedOpenSearch.uniquePrefix());
    args.put(ExporterConfiguration.BULK_DELAY, delay);
    args.put(ExporterConfiguration.BULK_SIZE, 100_000);
    ReadModelExporter exporter = new ReadModelExporter();
    context = new ExporterTestContext().setConfiguration(new ExporterTestConfiguration<>("t", args, a -> a));
    exporter.configure(context);
    exporter.open(controller);
    return exporter;
  }

  @ParameterizedTest(name = "bulk delay {0}")
  @ValueSource(strings = {"20ms", "100ms", "1s"})
  void aBusyExportPathFlushesWhenTheOldestRecordHasWaitedTheDelay(String delay) {
    Duration bulkDelay = parse(delay);
    ExporterTestController controller = new ExporterTestController();
    ReadModelExporter exporter = open(controller, delay);
    try {
      long runNanos = bulkDelay.multipliedBy(4).plusMillis(200).toNanos();
      long start = System.nanoTime();
      Map<Long, Long> exportedAt = new HashMap<>();
      long position = 0;
      long acknowledged = 0;
      long worstWaitNanos = 0;
      long longestExportCallNanos = 0;
      while (System.nanoTime() - start < runNanos) {
        position++;
        long before = System.nanoTime();
        exportedAt.put(position, before);
        exporter.export(processInstance(position, 10_000 + position, ELEMENT_ACTIVATING));
        long after = System.nanoTime();
        longestExportCallNanos = Math.max(longestExportCallNanos, after - before);
        long now = controller.getPosition();
        if (now > acknowledged) {
          // the oldest record this acknowledgement covers waited the longest
          worstWaitNanos = Math.max(worstWaitNanos, after - exportedAt.get(acknowledged + 1));
          acknowledged = now;
        }
        sleepMillis(1);
      }
      exporter.awaitBulkInFlight();
      if (controller.getPosition() > acknowledged) {
        worstWaitNanos = Math.max(worstWaitNanos, System.nanoTime() - exportedAt.get(acknowledged + 1));
        acknowledged = controller.getPosition();
      }
      long worstMs = TimeUnit.NANOSECONDS.toMillis(worstWaitNanos);
      long boundMs = bulkDelay.toMillis() + 2 * longestFlushMillis()
          + TimeUnit.NANOSECONDS.toMillis(longestExportCallNanos) + MARGIN_MS;
      assertThat(acknowledged).as("flushed on the export path, the timer never ran").isPositive();
      assertThat(worstMs).as("longest wait of a record, ms (bound %d ms)", boundMs).isLessThanOrEqualTo(boundMs);
    } finally {
      exporter.close();
    }
  }

  @ParameterizedTest(name = "bulk delay {0}")
  @ValueSource(strings = {"20ms", "100ms", "1s"})
  void onAQuietPathTheTimerFlushesAfterTheDelay(String delay) {
    Duration bulkDelay = parse(delay);
    ExporterTestController controller = new ExporterTestController();
    long openedAt = System.nanoTime(); // the test controller's clock starts at 0 when the exporter schedules its timer
    ReadModelExporter exporter = open(controller, delay);
    try {
      long start = System.nanoTime();
      exporter.export(processInstance(1, 20_001, ELEMENT_ACTIVATING));
      // the delay runs from the record's arrival in the buffer, at the end of this call (the first one in a JVM loads
      // the handlers' classes)
      long exportCallNanos = System.nanoTime() - start;
      // the longest turn of this polling loop (its sleep, which a busy machine stretches, and the timer's run): the
      // test itself only sees the flush that late
      long longestTurnNanos = 0;
      while (controller.getPosition() < 1 && System.nanoTime() - start < bulkDelay.toNanos() * 3 + 2_000_000_000L) {
        long turnStart = System.nanoTime();
        sleepMillis(1);
        long before = System.nanoTime();
        // the actor's clock moves with real time (the test controller counts whole milliseconds from 0)
        long realMs = TimeUnit.NANOSECONDS.toMillis(before - openedAt);
        controller.runScheduledTasks(Duration.ofMillis(realMs - controller.getLastRanAt().toEpochMilli()));
        longestTurnNanos = Math.max(longestTurnNanos, System.nanoTime() - turnStart);
      }
      long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      long boundMs =
          TimeUnit.NANOSECONDS.toMillis(exportCallNanos) + bulkDelay.toMillis() + longestFlushMillis()
              + TimeUnit.NANOSECONDS.toMillis(longestTurnNanos) + MARGIN_MS;
      assertThat(controller.getPosition()).isEqualTo(1);
      assertThat(waitedMs).as("record to durable, ms (bound %d ms: export call %d ms + delay + longest flush %d ms + "
              + "longest poll turn %d ms + margin)", boundMs, TimeUnit.NANOSECONDS.toMillis(exportCallNanos),
          longestFlushMillis(), TimeUnit.NANOSECONDS.toMillis(longestTurnNanos))
          .isLessThanOrEqualTo(boundMs);
      assertThat(waitedMs).as("not flushed before the delay").isGreaterThanOrEqualTo(bulkDelay.toMillis());
    } finally {
      exporter.close();
    }
  }

  private static Duration parse(String delay) {
    return dev.flowpipe.exporter.config.DurationText.parse("delay", delay);
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
