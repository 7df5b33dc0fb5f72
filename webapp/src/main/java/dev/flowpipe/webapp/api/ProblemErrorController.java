package dev.flowpipe.webapp.api;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.servlet.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * The error page ({@code /error}) as {@code application/problem+json}, in place of Spring Boot's plain error JSON: what
 * the servlet container or a filter answered with {@code sendError} (an unknown path, security's 401 and 403, a
 * failure outside Spring MVC's handlers) gets the API's problem shape whatever the request accepts. A 5xx names no
 * internals; its cause is logged. Asked for directly (not as the container's error dispatch), the page is no resource:
 * 404, not the 500 that a missing status would otherwise mean.
 */
@Controller
public class ProblemErrorController implements ErrorController {

  private static final Logger LOG = LoggerFactory.getLogger(ProblemErrorController.class);

  @RequestMapping("${server.error.path:${error.path:/error}}")
  public void error(HttpServletRequest request, HttpServletResponse response) throws IOException {
    if (request.getDispatcherType() != DispatcherType.ERROR
        && request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) == null) {
      ProblemResponses.write(request, response, HttpStatus.NOT_FOUND, "no such resource: " + request.getRequestURI(),
          Map.of());
      return;
    }
    HttpStatus status = status(request);
    Throwable failure = (Throwable) request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof RequestBodyLimit.BodyTooLargeException tooLarge) {
        ProblemResponses.write(request, response, HttpStatus.PAYLOAD_TOO_LARGE, tooLarge.getMessage(),
            Map.of("limit", RequestBodyLimit.LIMIT, "maximum", tooLarge.maxBytes()));
        return;
      }
    }
    String detail;
    if (status.is5xxServerError()) {
      LOG.warn("{} {} answered {}", request.getMethod(), request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI),
          status.value(), failure);
      detail = "the request failed on the server";
    } else if (status == HttpStatus.NOT_FOUND) {
      detail = "no such resource: " + request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
    } else if (status == HttpStatus.UNAUTHORIZED) {
      detail = "authentication is required";
    } else if (status == HttpStatus.FORBIDDEN) {
      detail = request.getMethod() + " " + request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI)
          + " is not allowed for this user";
    } else {
      Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
      detail = message == null || message.toString().isBlank() ? status.getReasonPhrase() : message.toString();
    }
    ProblemResponses.write(request, response, status, detail, Map.of());
  }

  private static HttpStatus status(HttpServletRequest request) {
    Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
    HttpStatus status = code instanceof Integer value ? HttpStatus.resolve(value) : null;
    return status == null ? HttpStatus.INTERNAL_SERVER_ERROR : status;
  }
}
