package dev.flowpipe.webapp.operations;

import dev.flowpipe.webapp.audit.AuditLog;
import dev.flowpipe.webapp.audit.AuditedOperation;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * The log of every operation ({@code dev.flowpipe.webapp.operations}, INFO): the user, what was asked, on which key,
 * and whether it was done. Every user-controlled text in a line (user names, variable names, messages, filters) goes
 * through {@link #escaped}, so no request can end a line early and forge the next one.
 */
public final class OperationAudit {

  private static final Logger AUDIT = LoggerFactory.getLogger("dev.flowpipe.webapp.operations");

  private OperationAudit() {}

  /** Runs {@code action} on behalf of the current user and logs its outcome. */
  public static <T> ResponseEntity<T> audited(String operation, Long key, Supplier<ResponseEntity<T>> action) {
    return audited(AuditLog.NONE, null, answer -> null, operation, key, action);
  }

  /**
   * Runs {@code action} on behalf of the current user, logs its outcome, and records it in the audit log as
   * {@code what}: done, as {@code done} makes it from the answer (a created key), or refused, with the reason.
   */
  public static <T> ResponseEntity<T> audited(AuditLog audit, AuditedOperation what,
      Function<ResponseEntity<T>, AuditedOperation> done, String operation, Long key,
      Supplier<ResponseEntity<T>> action) {
    String name = user();
    ResponseEntity<T> answer;
    try {
      answer = logged(name, operation, key, action);
    } catch (RuntimeException e) {
      if (what != null) {
        audit.record(what, name, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
      }
      throw e;
    }
    AuditedOperation recorded = done.apply(answer);
    if (recorded != null || what != null) {
      audit.record(recorded != null ? recorded : what, name, null);
    }
    return answer;
  }

  /** {@link #audited(AuditLog, AuditedOperation, Function, String, Long, Supplier)} of an operation known up front. */
  public static <T> ResponseEntity<T> audited(AuditLog audit, AuditedOperation what, String operation, Long key,
      Supplier<ResponseEntity<T>> action) {
    return audited(audit, what, answer -> null, operation, key, action);
  }

  private static <T> ResponseEntity<T> logged(String name, String operation, Long key,
      Supplier<ResponseEntity<T>> action) {
    String user = escaped(name);
    String target = key == null ? "" : " " + key;
    try {
      ResponseEntity<T> answer = action.get();
      AUDIT.info("user '{}': {}{}: done ({})", user, escaped(cut(operation)), target, answer.getStatusCode().value());
      return answer;
    } catch (RuntimeException e) {
      AUDIT.info("user '{}': {}{}: not done: {}", user, escaped(cut(operation)), target, escaped(cut(e.getMessage())));
      throw e;
    }
  }

  /** A step of a batch operation, run later in the background: logged under the user who started the batch. */
  public static void logItem(String user, String operation, String itemKey, String outcome) {
    AUDIT.info("user '{}': {} {}: {}", escaped(user), escaped(operation), escaped(itemKey), escaped(outcome));
  }

  /**
   * The text with every control character (CR, LF, tab, escape, the C1 controls, the Unicode line and paragraph
   * separators) and the backslash written as an escape ({@code \n}, {@code \r}, {@code \t}, {@code \\},
   * {@code \u2028} for U+2028...): one log line stays one line, and an escape in the text cannot pass for one of ours.
   */
  public static String escaped(String text) {
    if (text == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }

  /** A line quotes at most this much of a request (a filter can be as large as the body cap). */
  private static String cut(String text) {
    return text == null || text.length() <= 2_000 ? text : text.substring(0, 2_000) + "... (" + text.length() + " characters)";
  }

  /** The authenticated user's name, or {@code anonymous}. */
  public static String user() {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    return authentication == null ? "anonymous" : authentication.getName();
  }
}
