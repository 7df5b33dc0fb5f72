package dev.flowpipe.schema.store;

import java.util.List;

/**
 * What the store did with a bulk. Writes refused because the store already holds a newer position are not failures.
 *
 * @param applied writes the store took or found already applied
 * @param failures writes the store refused for another reason, with that reason
 */
public record BulkOutcome(int applied, List<ItemFailure> failures) {

  public BulkOutcome {
    failures = List.copyOf(failures);
  }

  public boolean allApplied() {
    return failures.isEmpty();
  }

  /**
   * @param write the refused write
   * @param status HTTP status of the item
   * @param reason the store's error type and reason
   */
  public record ItemFailure(DocumentWrite write, int status, String reason) {
    /** Conflicts and store overload go away by themselves; a mapping error or a too-large document does not. */
    public boolean retryable() {
      return status == 429 || status >= 500;
    }
  }
}
