package dev.flowpipe.webapp.operations;

import dev.flowpipe.webapp.cluster.ClusterController;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * An engine command not carried out, as {@code application/problem+json} with the status Camunda's REST API answers:
 * 404 an unknown key, 409 refused as things stand, 400 invalid, 503 gateway or leader unreachable or busy (with
 * {@code Retry-After}), 504 no answer in time, 501 no gateway configured; the title is the status's reason phrase, as
 * in the API's other problems.
 */
@RestControllerAdvice(assignableTypes = {OperationsController.class, ClusterController.class})
@Order(Ordered.HIGHEST_PRECEDENCE)
public class OperationProblems {

  @ExceptionHandler(EngineCommandException.class)
  ResponseEntity<ProblemDetail> refused(EngineCommandException e) {
    HttpStatus status = switch (e.kind()) {
      case NOT_FOUND -> HttpStatus.NOT_FOUND;
      case REJECTED -> HttpStatus.CONFLICT;
      case INVALID -> HttpStatus.BAD_REQUEST;
      case UNAVAILABLE -> HttpStatus.SERVICE_UNAVAILABLE;
      case TIMED_OUT -> HttpStatus.GATEWAY_TIMEOUT;
      case NOT_CONFIGURED -> HttpStatus.NOT_IMPLEMENTED;
    };
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, e.getMessage());
    ResponseEntity.BodyBuilder answer = ResponseEntity.status(status);
    if (status == HttpStatus.SERVICE_UNAVAILABLE) {
      answer.header(HttpHeaders.RETRY_AFTER, "1");
    }
    return answer.body(problem);
  }
}
