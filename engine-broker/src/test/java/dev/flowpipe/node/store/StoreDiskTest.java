package dev.flowpipe.node.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.embeddedstore.DiskWatermarks;
import dev.flowpipe.embeddedstore.DiskWatermarks.State;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The node's view of the embedded store's disk, on a clock and a file system the test moves. */
class StoreDiskTest {

  private static final long MB = 1024 * 1024;
  private static final long TOTAL = 10_000 * MB;
  private static final DiskWatermarks WATERMARKS =
      DiskWatermarks.parse("flowpipe.store.embedded.disk.", "300mb", "200mb", "100mb");

  private Instant now = Instant.parse("2026-11-27T12:00:00Z");
  private long free = 1000 * MB;
  private IOException failure;
  private final AtomicInteger reads = new AtomicInteger();
  private final StoreDisk disk = new StoreDisk(() -> {
    reads.incrementAndGet();
    if (failure != null) {
      throw failure;
    }
    return new StoreDisk.Usage(free, TOTAL);
  }, WATERMARKS, Duration.ofSeconds(1), () -> now);

  private StoreDisk.Reading after(Duration elapsed) {
    now = now.plus(elapsed);
    return disk.reading();
  }

  @Nested
  class Reading {

    @Test
    void theFileSystemIsReadAtMostOncePerCheckInterval() {
      disk.reading();
      free = 50 * MB;

      assertThat(after(Duration.ofMillis(999)).state()).as("within the interval: the last reading").isEqualTo(State.OK);
      assertThat(reads).hasValue(1);
      assertThat(after(Duration.ofMillis(1)).state()).isEqualTo(State.FLOOD);
      assertThat(reads).hasValue(2);
    }

    @Test
    void aFailedReadKeepsTheLastStateAndSaysWhy() {
      free = 150 * MB;
      disk.reading();
      failure = new IOException("statfs failed");

      StoreDisk.Reading reading = after(Duration.ofSeconds(1));

      assertThat(reading.state()).isEqualTo(State.HIGH);
      assertThat(reading.freeBytes()).isEqualTo(150 * MB);
      assertThat(reading.error()).contains("statfs failed");
    }
  }

  @Nested
  class HoldingWrites {

    @Test
    void writesAreHeldFromTheHighWatermarkThroughTheFloodUntilUsageIsBackBelowTheHighWatermark() {
      assertThat(disk.aboveHighWatermark()).isFalse();

      free = 199 * MB;
      assertThat(after(Duration.ofSeconds(1)).state()).isEqualTo(State.HIGH);
      assertThat(disk.aboveHighWatermark()).isTrue();

      free = 99 * MB;
      assertThat(after(Duration.ofSeconds(1)).state()).isEqualTo(State.FLOOD);

      free = 150 * MB; // below the flood stage, still above the high watermark: the store keeps its block
      assertThat(after(Duration.ofSeconds(1)).state()).isEqualTo(State.FLOOD);
      assertThat(disk.aboveHighWatermark()).isTrue();

      free = 250 * MB;
      assertThat(after(Duration.ofSeconds(1)).state()).isEqualTo(State.OK);
      assertThat(disk.aboveHighWatermark()).isFalse();
    }
  }
}
