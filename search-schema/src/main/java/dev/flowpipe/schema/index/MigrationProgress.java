package dev.flowpipe.schema.index;

/**
 * What the schema migration of this process is doing, for health and metrics: read from other threads while the
 * migration writes it.
 */
public final class MigrationProgress {

  /** Where a start-up stands with respect to migrating an older read-model schema. */
  public enum State {
    /** Nothing of an older schema was found. */
    NOT_NEEDED,
    /** Another process holds the migration; this one waits for it to finish. */
    WAITING,
    /** This process copies the older schema's documents. */
    MIGRATING,
    /** The older schema's documents are in this build's schema, and the older indices are gone. */
    MIGRATED,
    /** The migration stopped with an error; the next start resumes it. */
    FAILED
  }

  /**
   * @param copied documents copied so far (or already present in the new version)
   * @param total documents the older indices held when the copy started
   * @param error why it failed, or null
   */
  public record Snapshot(State state, int fromVersion, int toVersion, long copied, long total, String error) {}

  private volatile Snapshot current =
      new Snapshot(State.NOT_NEEDED, ReadModelIndex.SCHEMA_VERSION, ReadModelIndex.SCHEMA_VERSION, 0, 0, null);

  public Snapshot snapshot() {
    return current;
  }

  void update(State state, long copied, long total, String error) {
    current = new Snapshot(state, PreviousSchema.VERSION, ReadModelIndex.SCHEMA_VERSION, copied, total, error);
  }
}
