package dev.flowpipe.webapp.api;

import dev.flowpipe.schema.store.StoreUnavailableException;
import dev.flowpipe.webapp.query.BadRequestException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Errors of the API as {@code application/problem+json}, with the fields of Camunda's REST API v2 ProblemDetail (type
 * {@code about:blank}, title the status's reason phrase, status, detail, instance the request path): a bad request
 * part 400 (with the extension {@code part} naming it), an unknown key 404, the store unreachable 503 (the operations'
 * engine refusals: {@code OperationProblems}). Spring's own request errors (unreadable JSON, wrong media type or
 * method) keep their status and get the same body shape.
 */
@RestControllerAdvice(basePackages = "dev.flowpipe.webapp")
public class ProblemHandler extends ResponseEntityExceptionHandler {

  private static final Logger LOG = LoggerFactory.getLogger(ProblemHandler.class);

  @ExceptionHandler(BadRequestException.class)
  ResponseEntity<ProblemDetail> badRequest(BadRequestException e) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
    problem.setProperty("part", e.part());
    return ResponseEntity.status(HttpStatus.BAD_REQUEST).body(problem);
  }

  @ExceptionHandler(NotFoundException.class)
  ResponseEntity<ProblemDetail> notFound(NotFoundException e) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, e.getMessage());
    return ResponseEntity.status(HttpStatus.NOT_FOUND).body(problem);
  }

  @ExceptionHandler(StoreUnavailableException.class)
  ResponseEntity<ProblemDetail> storeUnavailable(StoreUnavailableException e) {
    LOG.warn("search store unavailable: {}", e.getMessage());
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, "the search store is unavailable: " + e.getMessage());
    return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "1").body(problem);
  }
}
