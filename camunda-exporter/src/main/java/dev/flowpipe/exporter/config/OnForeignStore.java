package dev.flowpipe.exporter.config;

import java.util.Locale;

/** What the exporter does when the store's read model of its partition comes from another broker log. */
public enum OnForeignStore {
  /** Export nothing and acknowledge nothing; health DOWN naming both logs. */
  REFUSE,
  /** Delete the partition's read model in the store (its documents, dead letters and export position), then export. */
  WIPE_READ_MODEL;

  /** The setting's value as written: {@code refuse}, {@code wipe-read-model}. */
  public String text() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Reads {@code refuse} or {@code wipe-read-model}; {@code key} names the setting in the message. */
  public static OnForeignStore parse(String key, Object value) {
    for (OnForeignStore option : values()) {
      if (option.text().equals(String.valueOf(value).trim().toLowerCase(Locale.ROOT))) {
        return option;
      }
    }
    throw new IllegalArgumentException(key + " must be refuse or wipe-read-model, was '" + value + "'");
  }
}
