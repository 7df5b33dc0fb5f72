package dev.flowpipe.importer.source;

import io.camunda.zeebe.protocol.record.ValueType;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where Camunda's stock exporter (8.6) keeps raw records: one index per value type, broker version and day of the
 * record's timestamp, {@code <prefix>_<value-type>_<version>_<yyyy-MM-dd>}. Readers search the pattern
 * {@code <prefix>_<value-type>_*}, never one day's index, so a day's rollover is invisible to them; the pattern also
 * finds indices made without the stock templates (which add the read alias {@code <prefix>-<value-type>}).
 */
public final class RawRecordIndices {

  private static final Pattern PREFIX = Pattern.compile("[a-z0-9][a-z0-9.-]{0,99}");

  private final String prefix;

  /** @param prefix the stock exporter's {@code index.prefix}: lowercase, no '_' (the stock exporter forbids it too) */
  public RawRecordIndices(String prefix) {
    if (prefix == null || !PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "source prefix must be lowercase letters, digits, '-' or '.' (no '_'), was '" + prefix + "'");
    }
    this.prefix = prefix;
  }

  /** Every index of one value type, e.g. {@code zeebe-record_process-instance_*}. */
  public String pattern(ValueType valueType) {
    return prefix + "_" + valueTypeName(valueType) + "_*";
  }

  public List<String> patterns(Collection<ValueType> valueTypes) {
    return valueTypes.stream().map(this::pattern).toList();
  }

  /** The name of one day's index, as the stock exporter makes it (tests write raw records under such names). */
  public String dayIndex(ValueType valueType, String brokerVersion, String day) {
    return prefix + "_" + valueTypeName(valueType) + "_" + brokerVersion + "_" + day;
  }

  /** {@code PROCESS_INSTANCE} -> {@code process-instance}. */
  public static String valueTypeName(ValueType valueType) {
    return valueType.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public String prefix() {
    return prefix;
  }
}
