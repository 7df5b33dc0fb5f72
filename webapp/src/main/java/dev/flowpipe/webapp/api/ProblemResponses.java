package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;

/**
 * Writes an {@code application/problem+json} answer straight to the servlet response, for errors that arise outside
 * Spring MVC's handlers (the error page, a filter, the security entry points): the fields of Camunda's REST API v2
 * ProblemDetail ({@code type} about:blank, {@code title} the status's reason phrase, {@code status}, {@code detail},
 * {@code instance} the request path), plus extensions. Writes whatever the request's {@code Accept} says: a client of
 * the API expects this shape for every error.
 */
public final class ProblemResponses {

  private static final ObjectMapper JSON = new ObjectMapper();

  private ProblemResponses() {}

  /** Writes the problem; an already committed response is left as it is. */
  public static void write(HttpServletRequest request, HttpServletResponse response, HttpStatus status, String detail,
      Map<String, Object> extensions) throws IOException {
    if (response.isCommitted()) {
      return;
    }
    response.resetBuffer();
    response.setStatus(status.value());
    response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
    response.setCharacterEncoding(StandardCharsets.UTF_8.name());
    response.getOutputStream().write(JSON.writeValueAsBytes(body(status, detail, instance(request), extensions)));
    response.flushBuffer();
  }

  /** The problem document's fields, in the order Camunda writes them. */
  static Map<String, Object> body(HttpStatus status, String detail, String instance, Map<String, Object> extensions) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", "about:blank");
    body.put("title", status.getReasonPhrase());
    body.put("status", status.value());
    body.put("detail", detail);
    body.put("instance", instance);
    body.putAll(extensions);
    return body;
  }

  private static String instance(HttpServletRequest request) {
    Object original = request.getAttribute(jakarta.servlet.RequestDispatcher.ERROR_REQUEST_URI);
    return original != null ? original.toString() : request.getRequestURI();
  }

  /** A 401 with the basic-auth challenge of {@code realm}, for Spring Security's {@code httpBasic} entry point. */
  public static AuthenticationEntryPoint basicAuthEntryPoint(String realm) {
    return (request, response, e) -> {
      response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "Basic realm=\"" + realm + "\"");
      write(request, response, HttpStatus.UNAUTHORIZED, "authentication is required: " + e.getMessage(), Map.of());
    };
  }

  /** A 403 naming the method and path refused, for Spring Security's {@code accessDeniedHandler}. */
  public static AccessDeniedHandler accessDenied() {
    return (request, response, e) -> write(request, response, HttpStatus.FORBIDDEN,
        request.getMethod() + " " + request.getRequestURI() + " is not allowed for this user", Map.of());
  }
}
