package dev.flowpipe.node.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.node.TestNode;
import dev.flowpipe.node.store.StoreFaultRun.Observation;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30: the embedded store's disk filled under a steady load. The watermarks are sizes of free space just below
 * what the test's file system has free; a filler file takes the free space past the high watermark, then past the
 * flood stage. Flow control holds the write rate at its floor before the store blocks writes; health shows the disk
 * state; once the filler is deleted the store lifts its block by itself, the exporter catches up, and the read model
 * holds every instance the engine completed, and nothing else.
 */
class StoreDiskFilledTest {

  private static final long MB = 1024 * 1024;
  private static final int LOAD_PER_SECOND = 20;
  private static final int MIN_WRITE_RATE = 100; // the default floor
  /** Past a watermark by this much, so other writers on the machine do not undo the crossing. */
  private static final long MARGIN = 40 * MB;
  /** The filler never grows beyond this. */
  private static final long FILLER_CAP = 700 * MB;

  @TempDir(cleanup = CleanupMode.ON_SUCCESS) // the store's log stays for a failed run
  Path data;

  @Test
  void flowControlHoldsWritesBeforeTheStoreBlocksThemAndExportingResumesWhenSpaceReturns() throws Exception {
    String prefix = "disk";
    // the store's directory on a file system of its own where the machine allows it (a tmpfs: root on Linux), so
    // that other writers on a shared machine move its free space neither way; else the data directory's own
    Path storeDirectory = data.resolve("opensearch");
    Files.createDirectories(storeDirectory);
    boolean ownFileSystem = mountTmpfs(storeDirectory, 1200 * MB);
    FileStore fileStore = Files.getFileStore(storeDirectory);
    long free = fileStore.getUsableSpace();
    long low = free - 150 * MB;
    long high = free - 250 * MB;
    long flood = free - 350 * MB;
    Path filler = storeDirectory.resolve("filler");
    try (TestNode node = new TestNode(data)
            .with("flowpipe.exporter.index-prefix", prefix)
            // a small log segment: the broker preallocates each one, 128MB by default
            .with("zeebe.broker.data.log-segment-size", "8MB")
            // the store's fair share of a machine other builds keep busy: at niceness 10 and a load average of 25 on two
            // cores, a restarted store with indices to recover was not green within its 90 s start timeout
            .with("flowpipe.store.embedded.niceness", 0)
            .with("flowpipe.store.embedded.start-timeout", "5m")
            .with("flowpipe.store.embedded.disk.watermark-low", low + "b")
            .with("flowpipe.store.embedded.disk.watermark-high", high + "b")
            .with("flowpipe.store.embedded.disk.watermark-flood-stage", flood + "b")
            .start();
        StoreFaultRun run = new StoreFaultRun(node).start(LOAD_PER_SECOND)) {
      run.awaitObservation("disk OK and store UP under load", 0, Duration.ofMinutes(3),
          o -> "UP".equals(o.health()) && "OK".equals(o.diskState()));
      Thread.sleep(5_000); // a steady load before the fault

      // past the high watermark, short of the flood stage
      long highAt = run.millis();
      long filled = fill(filler, fileStore, high - MARGIN);
      long highFilled = run.millis();
      long held = run.awaitObservation("writes held at the floor", highAt, Duration.ofSeconds(10),
          o -> o.diskHold() && o.writeLimit() != null && o.writeLimit() <= MIN_WRITE_RATE);
      assertThat(fileStore.getUsableSpace()).as("still short of the flood stage").isGreaterThan(flood);
      Thread.sleep(3_000);

      // past the flood stage
      long floodAt = run.millis();
      filled = fill(filler, fileStore, flood - MARGIN);
      long floodFilled = run.millis();
      long floodShown = run.awaitObservation("health shows the flood stage", floodAt, Duration.ofSeconds(15),
          o -> "OUT_OF_SERVICE".equals(o.health()) && "FLOOD".equals(o.diskState()));
      long blocked = run.awaitObservation("the store blocks writes", floodAt, Duration.ofSeconds(30),
          Observation::storeBlocksWrites);
      assertThat(run.get("/actuator/health/searchStore").path("details").path("disk").path("freeBytes").asLong())
          .isLessThan(flood);
      Thread.sleep(5_000); // the load goes on while the store refuses the exporter's bulks

      long recoveredAt = run.millis();
      Files.delete(filler);
      long unblocked = run.awaitObservation("the store lifts its block by itself", recoveredAt, Duration.ofSeconds(60),
          o -> !o.storeBlocksWrites() && "UP".equals(o.health()) && "OK".equals(o.diskState()) && !o.diskHold());
      long caughtUp = run.awaitCaughtUp(recoveredAt, Duration.ofMinutes(2));
      Thread.sleep(3_000);
      run.stopLoad();
      long stoppedAt = run.millis();
      long exact = run.awaitReadModelExact(prefix, Duration.ofMinutes(2));

      List<Observation> timeline = run.timeline();
      long firstHold = timeline.stream().filter(Observation::diskHold).mapToLong(Observation::millis).min().orElseThrow();
      long firstBlock =
          timeline.stream().filter(Observation::storeBlocksWrites).mapToLong(Observation::millis).min().orElseThrow();
      System.out.printf("[store-disk-filled] " + (ownFileSystem ? "tmpfs; " : "shared file system; ") + "free at start"
              + " %d MB, watermarks low/high/flood %d/%d/%d MB free; filler %d MB. Past the high watermark (filler"
              + " written in %d ms): writes held at the floor %d ms after it was written. Past the flood stage (written in"
              + " %d ms): health FLOOD %d ms after, the store blocked writes %d ms after. Filler deleted: store unblocked"
              + " and health UP after %d ms, exporter caught up (lag under %d ms) after %d ms; read model exact %d ms"
              + " after the load stopped; %d instances completed, %d refused by flow control (lost = 0)%n",
          free / MB, low / MB, high / MB, flood / MB, filled / MB, highFilled - highAt, held - highFilled,
          floodFilled - floodAt, floodShown - floodFilled, blocked - floodFilled, unblocked - recoveredAt,
          StoreFaultRun.CAUGHT_UP_MILLIS, caughtUp - recoveredAt, exact - stoppedAt, run.completed().size(),
          run.rejected());
      assertThat(firstHold).as("writes held before the store blocks them").isLessThan(firstBlock);
      assertThat(run.errors()).as("client errors").isEmpty();
      assertThat(run.unknown()).as("creations whose outcome the client could not tell").isZero();
      assertThat(run.rejected()).as("commands refused at the floor").isPositive();
    } finally {
      Files.deleteIfExists(filler);
      if (ownFileSystem) {
        new ProcessBuilder("umount", storeDirectory.toString()).inheritIO().start().waitFor();
      }
    }
  }

  /** Mounts a tmpfs of {@code size} bytes on {@code directory}; false where the machine does not allow it. */
  private static boolean mountTmpfs(Path directory, long size) throws Exception {
    try {
      Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + size / MB + "m", "tmpfs",
          directory.toString()).redirectErrorStream(true).start();
      String output = new String(mount.getInputStream().readAllBytes());
      boolean mounted = mount.waitFor() == 0;
      System.out.println("[store-disk-filled] " + (mounted ? "the store on a tmpfs of its own"
          : "no tmpfs (" + output.trim() + "): the store on the data directory's file system"));
      return mounted;
    } catch (IOException e) {
      return false;
    }
  }

  /** Appends to the filler until the file system has less than {@code freeBelow} free; its size after. */
  private static long fill(Path filler, FileStore fileStore, long freeBelow) throws IOException {
    ByteBuffer chunk = ByteBuffer.allocate((int) (8 * MB));
    try (FileChannel out = FileChannel.open(filler, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND)) {
      while (fileStore.getUsableSpace() >= freeBelow) {
        assertThat(out.size()).as("filler size").isLessThan(FILLER_CAP);
        chunk.clear();
        out.write(chunk);
        out.force(false);
      }
      return out.size();
    }
  }
}
