package dev.flowpipe.importer.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ImporterMetricsTest {

  @Test
  void theLagAndCaughtUpGaugesStillReadTheirSuppliersAfterAGarbageCollection() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AtomicBoolean caughtUp = new AtomicBoolean(true);
    double lagMillis = 1_500.0;
    // suppliers made on the call and held by nothing else, as PartitionImport's this::lagMillis
    new ImporterMetrics(registry, 1).status(() -> lagMillis, caughtUp::get);

    System.gc();
    System.gc();

    assertThat(registry.get("flowpipe.importer.lag").timeGauge().value(TimeUnit.MILLISECONDS)).isEqualTo(1_500.0);
    assertThat(registry.get("flowpipe.importer.caught.up").gauge().value()).isEqualTo(1.0);
  }
}
