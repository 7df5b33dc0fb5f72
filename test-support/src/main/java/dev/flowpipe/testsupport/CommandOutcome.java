package dev.flowpipe.testsupport;

import io.camunda.zeebe.client.api.command.ClientStatusException;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;

/**
 * How a command sent to the gateway ended, read from the error the client hands back. Zeebe 8.6 wraps the gRPC status
 * in a {@link ClientStatusException}, and futures wrap that again (CompletionException, ExecutionException), so the
 * whole cause chain is searched for the first gRPC status.
 */
public enum CommandOutcome {
  ACCEPTED,
  /** {@code RESOURCE_EXHAUSTED}: backpressure (the broker's request limiter or our flow control's write limit). */
  REJECTED,
  /** {@code DEADLINE_EXCEEDED}: no answer within the request timeout; the command may still have been applied. */
  TIMED_OUT,
  FAILED;

  public static CommandOutcome of(Throwable error) {
    if (error == null) {
      return ACCEPTED;
    }
    Status.Code code = statusCode(error);
    if (code == Status.Code.RESOURCE_EXHAUSTED) {
      return REJECTED;
    }
    if (code == Status.Code.DEADLINE_EXCEEDED) {
      return TIMED_OUT;
    }
    return FAILED;
  }

  /** The first gRPC status code in the cause chain, or null if there is none. */
  public static Status.Code statusCode(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ClientStatusException e) {
        return e.getStatusCode();
      }
      if (t instanceof StatusRuntimeException e) {
        return e.getStatus().getCode();
      }
      if (t instanceof StatusException e) {
        return e.getStatus().getCode();
      }
    }
    return null;
  }

  /**
   * Sends a command of a scenario's preparation (not measured) until the broker accepts it: a refusal by backpressure
   * means "later" (for up to a minute, 100 ms apart), any other error is thrown.
   */
  public static <T> T untilAccepted(java.util.function.Supplier<T> command) throws InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(1);
    while (true) {
      try {
        return command.get();
      } catch (RuntimeException e) {
        if (of(e) != REJECTED || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  /** A short name for an error, for the report's error counts: the gRPC code, or the exception's class. */
  public static String kind(Throwable error) {
    Status.Code code = statusCode(error);
    if (code != null) {
      return code.name();
    }
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName();
  }
}
