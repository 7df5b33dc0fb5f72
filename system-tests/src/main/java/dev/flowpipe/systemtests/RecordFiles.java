package dev.flowpipe.systemtests;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camunda.zeebe.protocol.jackson.ZeebeProtocolModule;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordValue;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads back what {@link RecordFileExporter} wrote: one partition's records, each once, in log order, as records
 * (Zeebe's own Jackson module for the record JSON). A file is a sequence of runs, one per time its node began exporting
 * the partition (a start, or in a cluster also becoming leader), each counting up from where the broker resumed; a
 * position seen before, in that file or another node's, is a repeat and is checked to be the same record. The log has
 * no holes (every record gets the next position), so neither may all files together.
 */
public final class RecordFiles {

  private static final ObjectMapper JSON = new ObjectMapper().registerModule(new ZeebeProtocolModule())
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
  private static final TypeReference<Record<RecordValue>> RECORD = new TypeReference<>() {};
  private static final Pattern FILE = Pattern.compile("partition-(\\d+)\\.jsonl");

  private RecordFiles() {}

  /**
   * What one partition's file held.
   *
   * @param lines lines read
   * @param records distinct records (positions)
   * @param repeats lines whose position came before (exported again after a restart)
   * @param firstPosition the first position (1 for a log recorded from its start)
   * @param timestamps the engine timestamp of each record, indexed by position minus {@code firstPosition}
   */
  public record Summary(int partition, long lines, long records, long repeats, long firstPosition, long[] timestamps) {

    long lastPosition() {
      return firstPosition + records - 1;
    }

    /** The engine time of the record at {@code position}, or -1 if it is not in the file. */
    long timestampOf(long position) {
      long i = position - firstPosition;
      return i < 0 || i >= records ? -1 : timestamps[(int) i];
    }
  }

  /** The partitions that have a file in any of {@code directories}, ascending. */
  public static List<Integer> partitions(List<Path> directories) throws IOException {
    java.util.SortedSet<Integer> partitions = new java.util.TreeSet<>();
    for (Path directory : directories) {
      if (!Files.isDirectory(directory)) {
        continue; // a node that never led a partition wrote nothing
      }
      try (Stream<Path> files = Files.list(directory)) {
        files.forEach(file -> {
          Matcher name = FILE.matcher(file.getFileName().toString());
          if (name.matches()) {
            partitions.add(Integer.parseInt(name.group(1)));
          }
        });
      }
    }
    return new ArrayList<>(partitions);
  }

  public static List<Integer> partitions(Path directory) throws IOException {
    return partitions(List.of(directory));
  }

  /** As {@link #replay(List, int, Consumer)} for one directory (one node). */
  public static Summary replay(Path directory, int partition, Consumer<Record<?>> sink) throws IOException {
    return replay(List.of(directory), partition, sink);
  }

  /**
   * Hands each record of the partition to {@code sink} once, in log order, from the partition's files in all of
   * {@code directories} (in a cluster each node records what it exported while it led the partition, so the files
   * overlap and each may skip what other nodes exported). Fails, naming the file and line, on a line that is not a
   * record and on a position whose lines differ (replicas hold the same record at a position: checked, not assumed),
   * and on a hole in the positions of all files together.
   */
  public static Summary replay(List<Path> directories, int partition, Consumer<Record<?>> sink) throws IOException {
    List<Path> files = directories.stream().map(directory -> RecordFileExporter.fileOf(directory, partition))
        .filter(Files::exists).toList();
    LineIndex index = new LineIndex();
    for (int f = 0; f < files.size(); f++) {
      index.add(f, files.get(f));
    }
    if (index.first < 0) {
      return new Summary(partition, 0, 0, 0, -1, new long[0]);
    }
    long records = index.last - index.first + 1;
    long[] timestamps = new long[(int) records];
    List<FileChannel> channels = new ArrayList<>();
    try {
      for (Path file : files) {
        channels.add(FileChannel.open(file, StandardOpenOption.READ));
      }
      for (long position = index.first; position <= index.last; position++) {
        int p = (int) position;
        if (index.length[p] == 0) {
          long to = position;
          while (to < index.last && index.length[(int) to + 1] == 0) {
            to++;
          }
          throw new IllegalStateException("partition " + partition + ": records " + position + " to " + to
              + " are missing from every record file (" + files + ")");
        }
        int f = (int) (index.location[p] >>> FILE_SHIFT);
        long offset = index.location[p] & OFFSET_MASK;
        String line = readLine(channels.get(f), offset, index.length[p]);
        Record<RecordValue> record = record(parse(line, files.get(f), offset), files.get(f), offset);
        timestamps[(int) (position - index.first)] = record.getTimestamp();
        sink.accept(record);
      }
    } finally {
      for (FileChannel channel : channels) {
        channel.close();
      }
    }
    return new Summary(partition, index.lines, records, index.lines - records, index.first, timestamps);
  }

  private static final int FILE_SHIFT = 48;
  private static final long OFFSET_MASK = (1L << FILE_SHIFT) - 1;

  /**
   * Where the first line of each position is (file and byte offset), and a checksum of it to check every other line
   * of that position against; indexed by position.
   */
  private static final class LineIndex {
    long[] location = new long[1024];
    int[] length = new int[1024];
    long[] checksum = new long[1024];
    long first = -1;
    long last = -1;
    long lines;

    void add(int fileNumber, Path file) throws IOException {
      try (java.io.InputStream in = Files.newInputStream(file)) {
        java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream(4096);
        byte[] chunk = new byte[1 << 16];
        long chunkStart = 0;
        long lineStart = 0;
        for (int read = in.read(chunk); read >= 0; chunkStart += read, read = in.read(chunk)) {
          int from = 0;
          for (int i = 0; i < read; i++) {
            if (chunk[i] == '\n') {
              line.write(chunk, from, i - from);
              noteLine(fileNumber, file, lineStart, line);
              line.reset();
              from = i + 1;
              lineStart = chunkStart + from;
            }
          }
          line.write(chunk, from, read - from);
        }
      }
    }

    private void noteLine(int fileNumber, Path file, long offset, java.io.ByteArrayOutputStream line) {
      lines++;
      String text = line.toString(StandardCharsets.UTF_8);
      JsonNode tree = parse(text, file, offset);
      long position = tree.path("position").asLong(-1);
      if (position < 1 || position >= Integer.MAX_VALUE) {
        throw new IllegalStateException(file + " at byte " + offset + ": no position in " + shortened(text));
      }
      note((int) position, fileNumber, offset, line.size(), checksum(tree, text), file);
    }

    private void note(int position, int fileNumber, long offset, int bytes, long sum, Path file) {
      if (position >= length.length) {
        int size = Math.max(2 * length.length, position + 1);
        location = Arrays.copyOf(location, size);
        length = Arrays.copyOf(length, size);
        checksum = Arrays.copyOf(checksum, size);
      }
      if (length[position] != 0) {
        if (checksum[position] != sum) {
          throw new IllegalStateException(file + " at byte " + offset + ": position " + position
              + " was exported again with different content");
        }
        return;
      }
      location[position] = (long) fileNumber << FILE_SHIFT | offset;
      length[position] = bytes;
      checksum[position] = sum;
      first = first < 0 ? position : Math.min(first, position);
      last = Math.max(last, position);
    }
  }

  private static String readLine(FileChannel channel, long offset, int bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(bytes);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, offset + buffer.position()) < 0) {
        throw new IOException("record file shorter than indexed");
      }
    }
    return new String(buffer.array(), StandardCharsets.UTF_8);
  }

  private static String shortened(String text) {
    return text.length() > 200 ? text.substring(0, 200) + "..." : text;
  }

  private static JsonNode parse(String line, Path file, long offset) {
    try {
      return JSON.readTree(line);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(file + " at byte " + offset + ": not JSON: " + e.getMessage(), e);
    }
  }

  private static Record<RecordValue> record(JsonNode tree, Path file, long offset) {
    try {
      Record<RecordValue> record = JSON.readerFor(RECORD).readValue(tree);
      if (record.getPartitionId() <= 0) {
        throw new IllegalStateException("no partition id");
      }
      return record;
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(file + " at byte " + offset + ": not a record: " + e.getMessage(), e);
    }
  }

  /**
   * Equal for the same record written twice: the broker writes a record value's properties in no fixed order (seen:
   * a job batch's {@code tenantIds} before or after {@code maxJobsToActivate}), so the JSON tree's hash, which does
   * not depend on the order of an object's fields, with the line's length.
   */
  private static long checksum(JsonNode tree, String line) {
    return (long) tree.hashCode() << 32 | (line.length() & 0xffffffffL);
  }
}
