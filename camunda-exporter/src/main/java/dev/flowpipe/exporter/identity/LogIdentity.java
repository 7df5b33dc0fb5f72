package dev.flowpipe.exporter.identity;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which broker log a partition's read model comes from: an id the exporter made up when it first wrote from that log,
 * and the first record it wrote (position and engine time), which a log wiped and begun anew does not repeat.
 *
 * <p>The id lives in two places. In the broker, as the exporter's metadata, acknowledged with every position: the
 * broker keeps it in the partition's state and hands it to every replica, so it belongs to the cluster's partition,
 * not to one node, and a replica that takes over the partition knows it. In the store, in the partition's document of
 * the {@code log-identity} index, beside the read model it describes.
 */
public record LogIdentity(String logId, int partitionId, long firstPosition, long firstTimestamp) {

  private static final String METADATA_PREFIX = "flowpipe-log-id=";

  /** The exporter metadata the broker keeps for this log. */
  public byte[] metadata() {
    return metadata(logId);
  }

  public static byte[] metadata(String logId) {
    return (METADATA_PREFIX + logId).getBytes(StandardCharsets.UTF_8);
  }

  /** The log id in exporter metadata, if the metadata is ours. */
  public static Optional<String> logIdOf(byte[] metadata) {
    if (metadata == null) {
      return Optional.empty();
    }
    String text = new String(metadata, StandardCharsets.UTF_8);
    return text.startsWith(METADATA_PREFIX) && text.length() > METADATA_PREFIX.length()
        ? Optional.of(text.substring(METADATA_PREFIX.length()))
        : Optional.empty();
  }

  public Map<String, Object> document(Instant writtenAt) {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("partitionId", partitionId);
    document.put("logId", logId);
    document.put("firstPosition", firstPosition);
    document.put("firstTimestamp", firstTimestamp);
    document.put("writtenAt", writtenAt.toEpochMilli());
    return document;
  }

  public static LogIdentity of(Map<String, Object> document) {
    return new LogIdentity(String.valueOf(document.get("logId")), ((Number) document.get("partitionId")).intValue(),
        ((Number) document.get("firstPosition")).longValue(), ((Number) document.get("firstTimestamp")).longValue());
  }

  /** For messages: "log 3f2a... (first record at position 1, written 2026-11-27T10:00:00Z)". */
  public String describe() {
    return "log " + logId + " (first record at position " + firstPosition + ", written "
        + Instant.ofEpochMilli(firstTimestamp) + ")";
  }
}
