package dev.flowpipe.embeddedstore;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The embedded store's disk watermarks, handed to OpenSearch as its own ({@code cluster.routing.allocation.disk.*}) and
 * read by the node to see the disk as the store does. Each is a share of the disk used ({@code 90%}) or an amount of
 * space left free ({@code 500mb}); all three are of one kind, as OpenSearch requires.
 *
 * <p>What the store does at each: above {@code low} it allocates no new replicas to the node; above {@code high} it
 * moves shards away (a single node has nowhere to move them) and blocks creating indices; above {@code floodStage} it
 * blocks every write to the node's indices ({@code index.blocks.read_only_allow_delete}, answered 429) and lifts the
 * block by itself once usage is back below {@code high}.
 *
 * @param low the low watermark
 * @param high the high watermark: the node holds the engine's write rate at its floor above it
 * @param floodStage the flood-stage watermark: the store refuses writes above it
 */
public record DiskWatermarks(Watermark low, Watermark high, Watermark floodStage) {

  /** OpenSearch's own defaults. */
  /** The default watermarks, OpenSearch's own: the one place they are written (the node's settings take them). */
  public static final String DEFAULT_LOW = "85%";

  public static final String DEFAULT_HIGH = "90%";
  public static final String DEFAULT_FLOOD_STAGE = "95%";
  public static final DiskWatermarks DEFAULTS = parse("", DEFAULT_LOW, DEFAULT_HIGH, DEFAULT_FLOOD_STAGE);

  /** Where the disk stands against the watermarks. */
  public enum State {
    /** Below the high watermark (and not still blocked from a flood). */
    OK,
    /** Above the high watermark: the store still takes writes, the node holds the engine's write rate at its floor. */
    HIGH,
    /** Above the flood stage, or back between it and the high watermark after one: the store refuses writes. */
    FLOOD
  }

  public DiskWatermarks {
    if (low == null || high == null || floodStage == null) {
      throw new IllegalArgumentException("disk watermarks must all be set, were " + low + ", " + high + ", " + floodStage);
    }
  }

  /**
   * Parses and checks three watermarks; each failure names the key ({@code prefix} + {@code watermark-low}, ...) and
   * the value.
   */
  public static DiskWatermarks parse(String prefix, String low, String high, String floodStage) {
    Watermark l = Watermark.parse(prefix + "watermark-low", low);
    Watermark h = Watermark.parse(prefix + "watermark-high", high);
    Watermark f = Watermark.parse(prefix + "watermark-flood-stage", floodStage);
    if (l.isPercent() != h.isPercent() || h.isPercent() != f.isPercent()) {
      throw new IllegalArgumentException(prefix + "watermark-low, -high and -flood-stage must all be percentages or all "
          + "sizes of free space, were " + low + ", " + high + ", " + floodStage);
    }
    // ordered by how full the disk is: low is reached first, the flood stage last
    if (l.fullness() > h.fullness() || h.fullness() > f.fullness()) {
      throw new IllegalArgumentException(prefix + "watermark-low, -high and -flood-stage must be reached in that order "
          + "as the disk fills (" + (l.isPercent() ? "low <= high <= flood-stage" : "low >= high >= flood-stage of free "
          + "space") + "), were " + low + ", " + high + ", " + floodStage);
    }
    return new DiskWatermarks(l, h, f);
  }

  /**
   * Where a disk with {@code freeBytes} of {@code totalBytes} stands, given where it stood: like the store, it stays
   * at {@link State#FLOOD} until usage is back below the high watermark, since the store lifts its block only then.
   */
  public State state(long freeBytes, long totalBytes, State previous) {
    if (floodStage.exceeded(freeBytes, totalBytes)) {
      return State.FLOOD;
    }
    if (high.exceeded(freeBytes, totalBytes)) {
      return previous == State.FLOOD ? State.FLOOD : State.HIGH;
    }
    return State.OK;
  }

  /** The store's settings for these watermarks. */
  public Map<String, String> storeSettings() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("cluster.routing.allocation.disk.watermark.low", low.storeValue());
    settings.put("cluster.routing.allocation.disk.watermark.high", high.storeValue());
    settings.put("cluster.routing.allocation.disk.watermark.flood_stage", floodStage.storeValue());
    return settings;
  }

  @Override
  public String toString() {
    return "low " + low + ", high " + high + ", flood stage " + floodStage;
  }

  /**
   * One watermark: a share of the disk used, or free space in bytes (the other is null).
   *
   * @param usedPercent exceeded when more than this share of the disk is used
   * @param freeBytes exceeded when less than this much space is free
   */
  public record Watermark(Double usedPercent, Long freeBytes) {

    private static final Pattern PERCENT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*%");
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kb|mb|gb|tb)?", Pattern.CASE_INSENSITIVE);

    public Watermark {
      if ((usedPercent == null) == (freeBytes == null)) {
        throw new IllegalArgumentException("a watermark is a percentage or a size, was " + usedPercent + " / " + freeBytes);
      }
    }

    /** {@code 90%} (of the disk used) or {@code 500mb} (left free; b, kb, mb, gb, tb, powers of 1024). */
    public static Watermark parse(String key, String text) {
      String value = text == null ? "" : text.trim();
      Matcher percent = PERCENT.matcher(value);
      if (percent.matches()) {
        double share = Double.parseDouble(percent.group(1));
        if (share <= 0 || share > 100) {
          throw new IllegalArgumentException(key + " must be a percentage above 0% and up to 100%, was '" + text + "'");
        }
        return new Watermark(share, null);
      }
      Matcher size = SIZE.matcher(value);
      if (size.matches()) {
        String unit = size.group(2) == null ? "b" : size.group(2).toLowerCase(Locale.ROOT);
        int shift = switch (unit) {
          case "kb" -> 10;
          case "mb" -> 20;
          case "gb" -> 30;
          case "tb" -> 40;
          default -> 0;
        };
        long number = Long.parseLong(size.group(1));
        if (number > Long.MAX_VALUE >> shift) {
          throw new IllegalArgumentException(key + " is too large, was '" + text + "'");
        }
        return new Watermark(null, number << shift);
      }
      throw new IllegalArgumentException(key + " must be a share of the disk used (e.g. 90%) or a size of free space "
          + "(e.g. 500mb), was '" + text + "'");
    }

    boolean isPercent() {
      return usedPercent != null;
    }

    /** Larger the fuller the disk is when this watermark is reached (for the order check, within one kind). */
    private double fullness() {
      return isPercent() ? usedPercent : -freeBytes;
    }

    /** As OpenSearch decides it: more of the disk used than the share, or less space free than the size. */
    public boolean exceeded(long freeBytes, long totalBytes) {
      if (isPercent()) {
        return totalBytes > 0 && (totalBytes - freeBytes) * 100.0 / totalBytes > usedPercent;
      }
      return freeBytes < this.freeBytes;
    }

    String storeValue() {
      return isPercent() ? percentText() + "%" : freeBytes + "b";
    }

    /** The percentage without a trailing {@code .0}. */
    private String percentText() {
      return new java.math.BigDecimal(String.valueOf(usedPercent)).stripTrailingZeros().toPlainString();
    }

    @Override
    public String toString() {
      return isPercent() ? percentText() + "% used" : freeBytes + " bytes free";
    }
  }
}
