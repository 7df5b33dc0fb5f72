package dev.flowpipe.webapp.api;

import dev.flowpipe.webapp.config.WebappProperties;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.MediaType;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * What the browser UI reads besides the API: how often its pages reload, whether this user may use the operations,
 * migrate and delete (so it shows their controls only where they would be allowed), and the API's description for its API page.
 */
@RestController
public class UiController {

  private final WebappProperties properties;
  private final Map<String, Object> openApi;

  public UiController(WebappProperties properties) {
    this.properties = properties;
    this.openApi = openApiDocument();
  }

  @GetMapping("/ui/config")
  public Map<String, Object> config() {
    return Map.of(
        "refreshIntervalMillis", properties.ui().refreshInterval().toMillis(),
        "operationsEnabled", properties.operationsEnabled(),
        "canOperate", properties.operationsEnabled() && mayAct(WebappProperties.Role.WRITE),
        "canMigrate", properties.operationsEnabled() && mayAct(properties.operations().migrationRole()),
        "canDelete", properties.operationsEnabled() && mayAct(properties.operations().deletionRole()));
  }

  /**
   * Mirrors the security rules: without authentication anyone may; with it, users with the role (write for the
   * operations, the configured roles for migration and deletion).
   */
  private boolean mayAct(WebappProperties.Role role) {
    if (!properties.security().basicAuth()) {
      return true;
    }
    String authority = "ROLE_" + role.name();
    Authentication user = SecurityContextHolder.getContext().getAuthentication();
    return user != null && user.getAuthorities().stream().anyMatch(a -> authority.equals(a.getAuthority()));
  }

  /** The OpenAPI document ({@code /openapi.yaml}) as JSON: the browser reads JSON, not YAML. */
  @GetMapping(path = "/ui/openapi", produces = MediaType.APPLICATION_JSON_VALUE)
  public Map<String, Object> openApi() {
    return openApi;
  }

  private static Map<String, Object> openApiDocument() {
    try (InputStream in = new ClassPathResource("static/openapi.yaml").getInputStream()) {
      return new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("the OpenAPI document is missing from the jar", e);
    }
  }
}
