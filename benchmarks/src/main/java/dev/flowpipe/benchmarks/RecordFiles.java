package dev.flowpipe.benchmarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camunda.zeebe.protocol.jackson.ZeebeProtocolModule;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordValue;
import java.io.BufferedReader;
import java.io.IOException;
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
 * (Zeebe's own Jackson module for the record JSON). The file is a sequence of runs, one per node start, each counting
 * up from where the broker resumed exporting; a position seen before is a repeat and is checked to be the same
 * record. The log has no holes (every record gets the next position), so neither may the file.
 */
final class RecordFiles {

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
  record Summary(int partition, long lines, long records, long repeats, long firstPosition, long[] timestamps) {

    long lastPosition() {
      return firstPosition + records - 1;
    }

    /** The engine time of the record at {@code position}, or -1 if it is not in the file. */
    long timestampOf(long position) {
      long i = position - firstPosition;
      return i < 0 || i >= records ? -1 : timestamps[(int) i];
    }
  }

  /** The partitions that have a file in {@code directory}, ascending. */
  static List<Integer> partitions(Path directory) throws IOException {
    List<Integer> partitions = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      files.forEach(file -> {
        Matcher name = FILE.matcher(file.getFileName().toString());
        if (name.matches()) {
          partitions.add(Integer.parseInt(name.group(1)));
        }
      });
    }
    partitions.sort(null);
    return partitions;
  }

  /**
   * Hands each record of the partition to {@code sink} once, in log order. Fails, naming the line, on a line that is
   * not a record, on a hole in the positions, and on a repeat that is not the record first read at its position.
   */
  static Summary replay(Path directory, int partition, Consumer<Record<?>> sink) throws IOException {
    Path file = RecordFileExporter.fileOf(directory, partition);
    long first = -1;
    long next = -1;
    long lines = 0;
    long repeats = 0;
    long[] checksums = new long[1024];
    long[] timestamps = new long[1024];
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        lines++;
        JsonNode tree = parse(line, file, lines);
        Record<RecordValue> record = record(tree, file, lines);
        long position = record.getPosition();
        if (first < 0) {
          first = position;
          next = position;
        }
        if (position < next) {
          if (position < first || checksums[(int) (position - first)] != checksum(tree, line)) {
            throw new IllegalStateException(file + " line " + lines + ": position " + position
                + " was exported again with different content");
          }
          repeats++;
          continue;
        }
        if (position > next) {
          throw new IllegalStateException(file + " line " + lines + ": position " + position + " follows " + (next - 1)
              + ": records " + next + " to " + (position - 1) + " are missing");
        }
        int i = (int) (position - first);
        if (i == checksums.length) {
          checksums = Arrays.copyOf(checksums, 2 * i);
          timestamps = Arrays.copyOf(timestamps, 2 * i);
        }
        checksums[i] = checksum(tree, line);
        timestamps[i] = record.getTimestamp();
        next++;
        sink.accept(record);
      }
    }
    long records = first < 0 ? 0 : next - first;
    return new Summary(partition, lines, records, repeats, first, Arrays.copyOf(timestamps, (int) records));
  }

  private static JsonNode parse(String line, Path file, long number) {
    try {
      return JSON.readTree(line);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(file + " line " + number + " is not JSON: " + e.getMessage(), e);
    }
  }

  private static Record<RecordValue> record(JsonNode tree, Path file, long number) {
    try {
      Record<RecordValue> record = JSON.readerFor(RECORD).readValue(tree);
      if (record.getPartitionId() <= 0) {
        throw new IllegalStateException("no partition id");
      }
      return record;
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(file + " line " + number + " is not a record: " + e.getMessage(), e);
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
