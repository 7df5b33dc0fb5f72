package dev.flowpipe.webapp.api;

import dev.flowpipe.webapp.config.WebappProperties;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Settings the browser UI reads at start: how often its lists reload. */
@RestController
public class UiController {

  private final WebappProperties properties;

  public UiController(WebappProperties properties) {
    this.properties = properties;
  }

  @GetMapping("/ui/config")
  public Map<String, Object> config() {
    return Map.of("refreshIntervalMillis", properties.ui().refreshInterval().toMillis());
  }
}
