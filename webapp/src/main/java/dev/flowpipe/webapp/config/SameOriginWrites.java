package dev.flowpipe.webapp.config;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import org.springframework.http.MediaType;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses a state-changing request another site's page could send with the user's credentials. Every request but
 * GET, HEAD, OPTIONS, TRACE and the searches (which change nothing) must carry a JSON {@code Content-Type} (a type a
 * page can send to another origin only after a CORS preflight, which this app never grants: a form or a
 * {@code no-cors} fetch cannot) and, where the browser says where it comes from, come from this origin: an
 * {@code Origin} header must equal the request's own scheme, host and port, and {@code Sec-Fetch-Site} must be
 * {@code same-origin} or {@code none}. A refusal is a 403 problem naming the reason. Programs (the official clients,
 * curl) send JSON and no {@code Origin}, so they pass.
 *
 * <p>One exception, for Camunda's 8.8 Java client, which sends the batch suspension, resumption and cancellation with
 * no body and no {@code Content-Type}: on those routes only ({@code bodylessForPrograms}), a request with no body, no
 * {@code Content-Type}, no {@code Origin} and no {@code Sec-Fetch-Site} goes on. Browsers send {@code Origin} and
 * {@code Sec-Fetch-Site} with every POST another site's page makes, so such a request comes from a program.
 */
final class SameOriginWrites extends OncePerRequestFilter {

  private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");
  private static final Set<String> ALLOWED_FETCH_SITES = Set.of("same-origin", "none");

  private final RequestMatcher searches;
  private final RequestMatcher bodylessForPrograms;

  /**
   * @param searches the POSTs that change nothing: exempt, as GET is
   * @param bodylessForPrograms the routes a program may call with no body and no {@code Content-Type}
   */
  SameOriginWrites(RequestMatcher searches, RequestMatcher bodylessForPrograms) {
    this.searches = searches;
    this.bodylessForPrograms = bodylessForPrograms;
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    boolean changesState = !SAFE_METHODS.contains(request.getMethod()) && !searches.matches(request);
    String refusal = changesState && !bodylessFromAProgram(request) ? refusal(request) : null;
    if (refusal == null) {
      chain.doFilter(request, response);
      return;
    }
    response.setStatus(HttpServletResponse.SC_FORBIDDEN);
    response.setContentType("application/problem+json");
    response.setCharacterEncoding(StandardCharsets.UTF_8.name());
    response.getWriter().write("{\"type\":\"about:blank\",\"title\":\"Forbidden\",\"status\":403,\"detail\":\""
        + json(refusal) + "\",\"instance\":\"" + json(request.getRequestURI()) + "\"}");
  }

  /** A body-less request without a type on a route that allows it, from no browser page (no Origin, no Sec-Fetch). */
  private boolean bodylessFromAProgram(HttpServletRequest request) {
    return request.getContentType() == null && request.getContentLengthLong() <= 0
        && request.getHeader("Transfer-Encoding") == null && request.getHeader("Origin") == null
        && request.getHeader("Sec-Fetch-Site") == null && bodylessForPrograms.matches(request);
  }

  /** Why the request is refused, or null when it may go on. */
  static String refusal(HttpServletRequest request) {
    String contentType = request.getContentType();
    if (!isJson(contentType)) {
      return "a " + request.getMethod() + " must carry Content-Type: application/json (with an empty body or {} where"
          + " the operation takes none); was " + (contentType == null ? "none" : "'" + contentType + "'")
          + ": other types can be sent by another site's page";
    }
    String fetchSite = request.getHeader("Sec-Fetch-Site");
    if (fetchSite != null && !ALLOWED_FETCH_SITES.contains(fetchSite.toLowerCase(Locale.ROOT))) {
      return "a " + request.getMethod() + " from another site's page is refused (Sec-Fetch-Site: " + fetchSite + ")";
    }
    String origin = request.getHeader("Origin");
    if (origin != null && !sameOrigin(origin, request)) {
      return "a " + request.getMethod() + " from another origin is refused (Origin: " + origin + ")";
    }
    return null;
  }

  private static boolean isJson(String contentType) {
    if (contentType == null || contentType.isBlank()) {
      return false;
    }
    try {
      MediaType type = MediaType.parseMediaType(contentType);
      return "application".equals(type.getType())
          && ("json".equals(type.getSubtype()) || type.getSubtype().endsWith("+json"));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Whether an {@code Origin} names this request's own scheme, host and port ({@code null} origins never do). */
  private static boolean sameOrigin(String origin, HttpServletRequest request) {
    try {
      URI theirs = URI.create(origin.trim());
      if (theirs.getScheme() == null || theirs.getHost() == null) {
        return false;
      }
      return theirs.getScheme().equalsIgnoreCase(request.getScheme())
          && hostOf(theirs.getHost()).equals(hostOf(request.getServerName()))
          && port(theirs.getScheme(), theirs.getPort()) == port(request.getScheme(), request.getServerPort());
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static String hostOf(String host) {
    String lower = host.toLowerCase(Locale.ROOT);
    return lower.startsWith("[") && lower.endsWith("]") ? lower.substring(1, lower.length() - 1) : lower;
  }

  private static int port(String scheme, int port) {
    if (port >= 0) {
      return port;
    }
    return "https".equalsIgnoreCase(scheme) ? 443 : 80;
  }

  private static String json(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }
}
