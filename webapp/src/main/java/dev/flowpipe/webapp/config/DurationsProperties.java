package dev.flowpipe.webapp.config;

import static dev.flowpipe.settings.SettingRules.positive;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The element-duration statistics behind the heat map ({@code flowpipe.webapp.durations.*}).
 *
 * @param defaultWindow the window a request without {@code from} covers, ending at {@code to} (default now)
 * @param maxSample the most completed element instances one request reads (the newest of the window); beyond, the
 *     answer says {@code sampled: true}
 */
@ConfigurationProperties("flowpipe.webapp.durations")
public record DurationsProperties(@DefaultValue("24h") Duration defaultWindow,
    @DefaultValue("50000") int maxSample) {

  private static final String P = "flowpipe.webapp.durations.";

  public DurationsProperties {
    positive(P + "default-window", defaultWindow);
    if (maxSample < 1 || maxSample > 1_000_000) {
      throw new IllegalArgumentException(P + "max-sample must be 1 to 1000000, was " + maxSample);
    }
  }
}
