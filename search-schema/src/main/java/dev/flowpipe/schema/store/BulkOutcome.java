package dev.flowpipe.schema.store;

import java.util.List;

/**
 * What the store did with a bulk.
 *
 * @param written writes the store took
 * @param superseded writes refused because the store already holds that position or a later one (409): already
 *     applied, not failures
 * @param failures writes the store refused for another reason, with that reason
 */
public record BulkOutcome(List<DocumentWrite> written, List<DocumentWrite> superseded, List<ItemFailure> failures) {

  public BulkOutcome {
    written = List.copyOf(written);
    superseded = List.copyOf(superseded);
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
    /** Overload and server errors go away by themselves; a mapping error or a too-large document does not. */
    public boolean retryable() {
      return status == 429 || status >= 500;
    }
  }
}
