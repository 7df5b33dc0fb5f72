package dev.flowpipe.webapp.operations;

import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * The log of every operation ({@code dev.flowpipe.webapp.operations}, INFO): the user, what was asked, on which key,
 * and whether it was done.
 */
public final class OperationAudit {

  private static final Logger AUDIT = LoggerFactory.getLogger("dev.flowpipe.webapp.operations");

  private OperationAudit() {}

  /** Runs {@code action} on behalf of the current user and logs its outcome. */
  public static <T> ResponseEntity<T> audited(String operation, Long key, Supplier<ResponseEntity<T>> action) {
    String user = user();
    String target = key == null ? "" : " " + key;
    try {
      ResponseEntity<T> answer = action.get();
      AUDIT.info("user '{}': {}{}: done ({})", user, operation, target, answer.getStatusCode().value());
      return answer;
    } catch (RuntimeException e) {
      AUDIT.info("user '{}': {}{}: not done: {}", user, operation, target, e.getMessage());
      throw e;
    }
  }

  /** A step of a batch operation, run later in the background: logged under the user who started the batch. */
  public static void logItem(String user, String operation, String itemKey, String outcome) {
    AUDIT.info("user '{}': {} {}: {}", user, operation, itemKey, outcome);
  }

  /** The authenticated user's name, or {@code anonymous}. */
  public static String user() {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    return authentication == null ? "anonymous" : authentication.getName();
  }
}
