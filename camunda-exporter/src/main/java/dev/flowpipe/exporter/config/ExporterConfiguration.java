package dev.flowpipe.exporter.config;

import dev.flowpipe.writer.config.SettingValues;
import dev.flowpipe.writer.config.WriterSettings;
import java.util.Map;

/**
 * The exporter's settings, read once from the broker's exporter arguments (a flat map): how the read model is written
 * ({@link WriterSettings}, the keys the importer shares) and what only the exporter decides. A bad value fails naming
 * its key, which fails the broker's start with that message.
 *
 * @param writer the store, the indices, the bulks and the retries (see {@link WriterSettings} for the keys)
 * @param onForeignStore what to do when the store's read model of the partition comes from another broker log
 *     ({@code on-foreign-store}: {@code refuse}, the default, or {@code wipe-read-model})
 */
public record ExporterConfiguration(WriterSettings writer, OnForeignStore onForeignStore) {

  public static final String ON_FOREIGN_STORE = "on-foreign-store";

  public ExporterConfiguration {
    if (writer == null || onForeignStore == null) {
      throw new IllegalArgumentException("writer settings and " + ON_FOREIGN_STORE + " are required");
    }
  }

  /** Reads the broker's exporter arguments; absent keys take their defaults. */
  public static ExporterConfiguration fromArguments(Map<String, ?> args) {
    SettingValues values = new SettingValues(args, "");
    return new ExporterConfiguration(WriterSettings.fromArguments(args),
        OnForeignStore.parse(ON_FOREIGN_STORE, values.text(ON_FOREIGN_STORE, OnForeignStore.REFUSE.text())));
  }
}
