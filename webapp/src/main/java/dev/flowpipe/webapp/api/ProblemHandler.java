package dev.flowpipe.webapp.api;

import dev.flowpipe.schema.store.QueryRejectedException;
import dev.flowpipe.schema.store.SearchTimedOutException;
import dev.flowpipe.schema.store.StoreUnavailableException;
import dev.flowpipe.webapp.config.WebappProperties;
import dev.flowpipe.webapp.consistency.TooManyWaitsException;
import dev.flowpipe.webapp.live.LiveUpdatesClosedException;
import dev.flowpipe.webapp.live.TooManyStreamsException;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.query.LimitExceededException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Errors of the API as {@code application/problem+json}, with the fields of Camunda's REST API v2 ProblemDetail (type
 * {@code about:blank}, title the status's reason phrase, status, detail, instance the request path): a bad request
 * part 400 (with the extension {@code part} naming it; a budget of {@code flowpipe.webapp.limits} also with
 * {@code limit}, {@code maximum} and {@code value}), a body over the cap 413, an unknown key 404, too many waiting
 * consistency requests 429, the store unreachable 503 (the operations' engine refusals: {@code OperationProblems}).
 * Spring's own request errors (unreadable JSON, wrong media type or method) keep their status and get the same body
 * shape; errors outside Spring MVC's handlers get it from {@link ProblemErrorController}. Anything unforeseen is a 500
 * that names no internals and is logged.
 */
@RestControllerAdvice(basePackages = "dev.flowpipe.webapp")
public class ProblemHandler extends ResponseEntityExceptionHandler {

  private static final Logger LOG = LoggerFactory.getLogger(ProblemHandler.class);

  private final java.time.Duration storeTimeout;

  public ProblemHandler(WebappProperties properties) {
    this.storeTimeout = properties.search().storeTimeout();
  }

  @ExceptionHandler(BadRequestException.class)
  ResponseEntity<ProblemDetail> badRequest(BadRequestException e) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
    problem.setProperty("part", e.part());
    if (e instanceof LimitExceededException limit) {
      problem.setProperty("limit", limit.limit());
      problem.setProperty("maximum", limit.maximum());
      if (limit.value() != null) {
        problem.setProperty("value", limit.value());
      }
    }
    return ResponseEntity.status(HttpStatus.BAD_REQUEST).body(problem);
  }

  /** A search the store stopped at its timeout, or refused, where the caller did not name the request's part. */
  @ExceptionHandler(QueryRejectedException.class)
  ResponseEntity<ProblemDetail> rejected(QueryRejectedException e) {
    return badRequest(e instanceof SearchTimedOutException ? SearchService.timedOut(storeTimeout)
        : new BadRequestException("body", "the store cannot run this search: " + e.getMessage()));
  }

  @ExceptionHandler(NotFoundException.class)
  ResponseEntity<ProblemDetail> notFound(NotFoundException e) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, e.getMessage());
    return ResponseEntity.status(HttpStatus.NOT_FOUND).body(problem);
  }

  @ExceptionHandler(TooManyWaitsException.class)
  ResponseEntity<ProblemDetail> tooManyWaits(TooManyWaitsException e) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, e.getMessage());
    problem.setProperty("limit", TooManyWaitsException.LIMIT);
    problem.setProperty("maximum", e.maxWaits());
    return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).header(HttpHeaders.RETRY_AFTER, "1").body(problem);
  }

  @ExceptionHandler(TooManyStreamsException.class)
  ResponseEntity<ProblemDetail> tooManyStreams(TooManyStreamsException e) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, e.getMessage());
    return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).header(HttpHeaders.RETRY_AFTER, "5").body(problem);
  }

  @ExceptionHandler(LiveUpdatesClosedException.class)
  ResponseEntity<ProblemDetail> liveUpdatesClosed(LiveUpdatesClosedException e) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
    return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "5").body(problem);
  }

  @ExceptionHandler(StoreUnavailableException.class)
  ResponseEntity<ProblemDetail> storeUnavailable(StoreUnavailableException e) {
    LOG.warn("search store unavailable: {}", e.getMessage());
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, "the search store is unavailable: " + e.getMessage());
    return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "1").body(problem);
  }

  /** A body over the cap read through {@link RequestBodyLimit} (413), or one that is no JSON (400). */
  @Override
  protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException e,
      HttpHeaders headers, HttpStatusCode status, WebRequest request) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof RequestBodyLimit.BodyTooLargeException tooLarge) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.PAYLOAD_TOO_LARGE, tooLarge.getMessage());
        problem.setProperty("limit", RequestBodyLimit.LIMIT);
        problem.setProperty("maximum", tooLarge.maxBytes());
        return handleExceptionInternal(e, problem, headers, HttpStatus.PAYLOAD_TOO_LARGE, request);
      }
    }
    String reason = e.getMostSpecificCause().getMessage();
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
        "the request body is not readable JSON: " + firstLine(reason));
    problem.setProperty("part", "body");
    return handleExceptionInternal(e, problem, headers, HttpStatus.BAD_REQUEST, request);
  }

  /** A defect of ours: 500, with nothing of the failure in the answer; the log has it. */
  @ExceptionHandler(Exception.class)
  ResponseEntity<ProblemDetail> unforeseen(Exception e) throws Exception {
    if (e instanceof org.springframework.web.ErrorResponse || e instanceof jakarta.servlet.ServletException) {
      throw e; // Spring's own request errors: handled by the base class with their status
    }
    LOG.error("request failed", e);
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR,
        "the request failed on the server");
    return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).body(problem);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "empty or malformed";
    }
    String line = message.lines().findFirst().orElse(message);
    // Jackson quotes the source; a reason never needs more than its first line, cut to a readable length
    return line.length() > 300 ? line.substring(0, 300) + "..." : line;
  }
}
