package dev.flowpipe.webapp.api;

import dev.flowpipe.webapp.config.WebappProperties;
import java.util.Map;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Settings the browser UI reads at start: how often its pages reload, and whether this user may use the operations
 * (so it shows their controls only where they would be allowed).
 */
@RestController
public class UiController {

  private static final String WRITE_AUTHORITY = "ROLE_" + WebappProperties.Role.WRITE.name();

  private final WebappProperties properties;

  public UiController(WebappProperties properties) {
    this.properties = properties;
  }

  @GetMapping("/ui/config")
  public Map<String, Object> config() {
    return Map.of(
        "refreshIntervalMillis", properties.ui().refreshInterval().toMillis(),
        "operationsEnabled", properties.operationsEnabled(),
        "canOperate", properties.operationsEnabled() && mayWrite());
  }

  /** Mirrors the security rules: without authentication anyone may; with it, users with the write role. */
  private boolean mayWrite() {
    if (!properties.security().basicAuth()) {
      return true;
    }
    Authentication user = SecurityContextHolder.getContext().getAuthentication();
    return user != null && user.getAuthorities().stream().anyMatch(a -> WRITE_AUTHORITY.equals(a.getAuthority()));
  }
}
