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

  /**
   * Sorts a bulk's item results, for every store: no error is written, a conflict (409: the store holds this position
   * or a later one) is superseded, anything else is a failure with the store's reason ({@link AnswerClass} decides).
   */
  public static final class Collector {
    private final List<DocumentWrite> written = new java.util.ArrayList<>();
    private final List<DocumentWrite> superseded = new java.util.ArrayList<>();
    private final List<ItemFailure> failures = new java.util.ArrayList<>();

    /** @param error the item's error as "type: reason", or null when it succeeded */
    public void item(DocumentWrite write, int status, String error) {
      if (error == null) {
        written.add(write);
      } else if (AnswerClass.of(status, AnswerClass.itemErrorType(error)) == AnswerClass.CONFLICT) {
        superseded.add(write);
      } else {
        failures.add(new ItemFailure(write, status, error));
      }
    }

    public BulkOutcome outcome() {
      return new BulkOutcome(written, superseded, failures);
    }
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
    /**
     * Overload and server errors go away by themselves, and a refusal of the store's (below) once someone lifts it; a
     * mapping error or a too-large document does not.
     */
    public boolean retryable() {
      return kind().retryable() || storeRefuses();
    }

    /** What the store's answer for this item means ({@link AnswerClass}). */
    public AnswerClass kind() {
      return AnswerClass.of(status, AnswerClass.itemErrorType(reason));
    }

    /**
     * 401 or 403: the store refuses the write for what it is set to, not for what the document holds (a user without
     * write rights, a write block such as {@code index.blocks.write}). Never a dead letter: the document is fine, and
     * would be lost with the store's next fix.
     */
    public boolean storeRefuses() {
      return kind() == AnswerClass.REFUSED;
    }
  }
}
