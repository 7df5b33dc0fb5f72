package dev.flowpipe.webapp.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.authentication.BadCredentialsException;

/** The problem writer the security entry points call: the API's problem shape for 401 and 403. */
class ProblemResponsesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theBasicAuthEntryPointAnswers401AsAProblemWithTheChallenge() throws Exception {
    MockHttpServletRequest request = new MockHttpServletRequest("POST", "/v2/process-instances/search");
    MockHttpServletResponse response = new MockHttpServletResponse();

    ProblemResponses.basicAuthEntryPoint("flowpipe").commence(request, response, new BadCredentialsException("Bad credentials"));

    assertThat(response.getStatus()).isEqualTo(401);
    assertThat(response.getContentType()).startsWith("application/problem+json");
    assertThat(response.getHeader("WWW-Authenticate")).isEqualTo("Basic realm=\"flowpipe\"");
    JsonNode problem = JSON.readTree(response.getContentAsByteArray());
    assertThat(problem.path("type").asText()).isEqualTo("about:blank");
    assertThat(problem.path("title").asText()).isEqualTo("Unauthorized");
    assertThat(problem.path("status").asInt()).isEqualTo(401);
    assertThat(problem.path("detail").asText()).contains("authentication is required");
    assertThat(problem.path("instance").asText()).isEqualTo("/v2/process-instances/search");
  }

  @Test
  void theAccessDeniedHandlerAnswers403NamingMethodAndPath() throws Exception {
    MockHttpServletRequest request = new MockHttpServletRequest("POST", "/v2/process-instances/1/cancellation");
    MockHttpServletResponse response = new MockHttpServletResponse();

    ProblemResponses.accessDenied().handle(request, response, new AccessDeniedException("Access Denied"));

    assertThat(response.getStatus()).isEqualTo(403);
    assertThat(response.getContentType()).startsWith("application/problem+json");
    JsonNode problem = JSON.readTree(response.getContentAsByteArray());
    assertThat(problem.path("title").asText()).isEqualTo("Forbidden");
    assertThat(problem.path("detail").asText()).isEqualTo("POST /v2/process-instances/1/cancellation is not allowed"
        + " for this user");
  }
}
