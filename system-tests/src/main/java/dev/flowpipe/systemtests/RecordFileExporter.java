package dev.flowpipe.systemtests;

import io.camunda.zeebe.exporter.api.Exporter;
import io.camunda.zeebe.exporter.api.context.Context;
import io.camunda.zeebe.exporter.api.context.Controller;
import io.camunda.zeebe.protocol.record.Record;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * The crash suite's second exporter, run inside the node beside ours: writes every record of its partition, of every
 * type, as one JSON line ({@code record.toJson()}) to {@code <directory>/partition-<id>.jsonl}, and acknowledges a
 * position only once the lines up to it are synced to disk. After a crash the broker exports again from the last
 * position it kept for this exporter (its last snapshot's, which may be earlier than the last acknowledgement), so the
 * file holds every record of the log at least once, in log order within each node run; {@link RecordFiles} drops the
 * repeats. Synchronous on purpose: nothing is buffered across {@code export()} calls but bytes already written, so the
 * broker's reuse of record objects cannot touch it. Argument: {@code directory}.
 */
public final class RecordFileExporter implements Exporter {

  static final String DIRECTORY = "directory";
  private static final Duration SYNC_INTERVAL = Duration.ofMillis(100);
  private static final int SYNC_EVERY_RECORDS = 1_000;

  private Path directory;
  private int partitionId;
  private Controller controller;
  private FileChannel file;
  private long lastWrittenPosition = -1;
  private int unsynced;

  @Override
  public void configure(Context context) {
    Object value = context.getConfiguration().getArguments().get(DIRECTORY);
    if (!(value instanceof String text) || text.isBlank()) {
      throw new IllegalArgumentException("RecordFileExporter needs the argument '" + DIRECTORY + "', was " + value);
    }
    directory = Path.of(text);
    partitionId = context.getPartitionId();
  }

  @Override
  public void open(Controller controller) {
    this.controller = controller;
    try {
      Files.createDirectories(directory);
      file = FileChannel.open(fileOf(directory, partitionId), StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE);
      // a kill can cut the last line short; its record was not acknowledged, so it comes again
      file.truncate(endOfLastLine(file));
      file.position(file.size());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the record file in " + directory, e);
    }
    controller.scheduleCancellableTask(SYNC_INTERVAL, this::syncOnTimer);
  }

  public static Path fileOf(Path directory, int partitionId) {
    return directory.resolve("partition-" + partitionId + ".jsonl");
  }

  /** The length of the file up to and including its last line feed (0 if it has none). */
  private static long endOfLastLine(FileChannel file) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
    long end = file.size();
    while (end > 0) {
      long start = Math.max(0, end - buffer.capacity());
      buffer.clear().limit((int) (end - start));
      while (buffer.hasRemaining()) {
        if (file.read(buffer, start + buffer.position()) < 0) {
          throw new IOException("file shrank while being read");
        }
      }
      for (int i = buffer.limit() - 1; i >= 0; i--) {
        if (buffer.get(i) == '\n') {
          return start + i + 1;
        }
      }
      end = start;
    }
    return 0;
  }

  @Override
  public void export(Record<?> record) {
    ByteBuffer line = ByteBuffer.wrap((record.toJson() + "\n").getBytes(StandardCharsets.UTF_8));
    long start = -1;
    try {
      start = file.position();
      while (line.hasRemaining()) {
        file.write(line);
      }
    } catch (IOException e) {
      cutBackTo(start); // the broker offers the record again: no half line may stay before it
      throw new UncheckedIOException("cannot write record " + record.getPosition(), e);
    }
    lastWrittenPosition = record.getPosition();
    if (++unsynced >= SYNC_EVERY_RECORDS) {
      sync();
    }
  }

  private void cutBackTo(long position) {
    try {
      if (position >= 0) {
        file.truncate(position);
        file.position(position);
      }
    } catch (IOException e) {
      // the half line stays; the reader fails on it, naming the file and line
    }
  }

  private void syncOnTimer() {
    sync();
    controller.scheduleCancellableTask(SYNC_INTERVAL, this::syncOnTimer);
  }

  /** Makes the written lines durable, then acknowledges the last of them. */
  private void sync() {
    if (unsynced == 0) {
      return;
    }
    try {
      file.force(false);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot sync the record file", e);
    }
    unsynced = 0;
    controller.updateLastExportedRecordPosition(lastWrittenPosition);
  }

  @Override
  public void close() {
    if (file == null) {
      return;
    }
    try {
      sync();
    } finally {
      try {
        file.close();
      } catch (IOException e) {
        // closing after a successful sync loses nothing
      }
    }
  }
}
