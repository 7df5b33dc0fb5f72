package dev.flowpipe.webapp.alert;

import static dev.flowpipe.settings.SettingRules.positive;
import static dev.flowpipe.settings.SettingRules.print;

import dev.flowpipe.settings.Secrets;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Incident alerts (issue 36, ADR 0021), under {@code flowpipe.alerts}: a signed webhook POST per new incident to each
 * endpoint. Off by default. Validated when bound, so a bad value stops start-up with a message naming key and value.
 *
 * @param enabled whether this process sends alerts (every node and server of a cluster may: claims keep it to one)
 * @param endpoints the webhook endpoints, each with a name unique among them (the name is part of each delivery's id)
 * @param secret the HMAC-SHA256 key the bodies are signed with (at least 16 characters); never printed
 * @param requestTimeout how long one POST may take, connection included; a slower endpoint counts as failed
 * @param maxAttempts how many POSTs one delivery gets before it is marked failed
 * @param firstBackoff the wait after the first failed attempt; each further failure doubles it
 * @param maxBackoff the longest wait between two attempts
 * @param pollInterval how often the store is asked for new alerts and due deliveries
 * @param claimTimeout how long a claim holds before another process may take the delivery over (a process that died
 *     between claim and mark); longer than the request timeout
 * @param maxInFlight POSTs to one endpoint at once; a slow endpoint holds only its own
 * @param errorTypes the incidents' error types that alert (e.g. {@code JOB_NO_RETRIES}); empty for every type
 * @param maxAge incidents older than this when first seen are not alerted (turning alerts on does not send history)
 * @param uiBaseUrl where the UI is reached, for the link to the instance page in each alert
 */
@ConfigurationProperties("flowpipe.alerts")
public record AlertProperties(
    @DefaultValue("false") boolean enabled,
    @DefaultValue List<Endpoint> endpoints,
    String secret,
    @DefaultValue("5s") Duration requestTimeout,
    @DefaultValue("10") int maxAttempts,
    @DefaultValue("1s") Duration firstBackoff,
    @DefaultValue("5m") Duration maxBackoff,
    @DefaultValue("250ms") Duration pollInterval,
    @DefaultValue("1m") Duration claimTimeout,
    @DefaultValue("16") int maxInFlight,
    @DefaultValue List<String> errorTypes,
    @DefaultValue("1h") Duration maxAge,
    @DefaultValue("http://127.0.0.1:8080") URI uiBaseUrl) {

  private static final String P = "flowpipe.alerts.";
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,39}");

  public AlertProperties {
    endpoints = List.copyOf(endpoints == null ? List.of() : endpoints);
    errorTypes = List.copyOf(errorTypes == null ? List.of() : errorTypes);
    positive(P + "request-timeout", requestTimeout);
    positive(P + "first-backoff", firstBackoff);
    positive(P + "max-backoff", maxBackoff);
    positive(P + "poll-interval", pollInterval);
    positive(P + "claim-timeout", claimTimeout);
    positive(P + "max-age", maxAge);
    if (maxAttempts < 1 || maxAttempts > 100) {
      throw new IllegalArgumentException(P + "max-attempts must be 1 to 100, was " + maxAttempts);
    }
    if (maxInFlight < 1 || maxInFlight > 1000) {
      throw new IllegalArgumentException(P + "max-in-flight must be 1 to 1000, was " + maxInFlight);
    }
    if (maxBackoff.compareTo(firstBackoff) < 0) {
      throw new IllegalArgumentException(P + "max-backoff must be >= first-backoff (" + print(firstBackoff) + "), was "
          + print(maxBackoff));
    }
    if (claimTimeout.compareTo(requestTimeout.multipliedBy(2)) < 0) {
      throw new IllegalArgumentException(P + "claim-timeout must be at least twice request-timeout ("
          + print(requestTimeout) + "), was " + print(claimTimeout));
    }
    if (uiBaseUrl == null || !uiBaseUrl.isAbsolute()) {
      throw new IllegalArgumentException(P + "ui-base-url must be an absolute URL, was " + uiBaseUrl);
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < endpoints.size(); i++) {
      Endpoint endpoint = endpoints.get(i);
      String key = P + "endpoints[" + i + "]";
      if (endpoint.name() == null || !NAME.matcher(endpoint.name()).matches()) {
        throw new IllegalArgumentException(key + ".name must be 1 to 40 of a-z, 0-9, '-' and '_', starting with a"
            + " letter or digit, was " + endpoint.name());
      }
      if (!names.add(endpoint.name())) {
        throw new IllegalArgumentException(key + ".name must be unique among the endpoints, was " + endpoint.name()
            + " again");
      }
      URI url = endpoint.url();
      if (url == null || !("http".equals(url.getScheme()) || "https".equals(url.getScheme())) || url.getHost() == null) {
        throw new IllegalArgumentException(key + ".url must be an http or https URL, was " + url);
      }
    }
    if (enabled) {
      if (endpoints.isEmpty()) {
        throw new IllegalArgumentException(P + "endpoints must name at least one endpoint when alerts are enabled,"
            + " was empty");
      }
      if (secret == null || secret.length() < 16) {
        throw new IllegalArgumentException(P + "secret must have at least 16 characters when alerts are enabled, was "
            + (secret == null ? "unset" : secret.length() + " characters"));
      }
    }
  }

  /** Whether an incident of this error type alerts. */
  public boolean alerts(String errorType) {
    return errorTypes.isEmpty() || errorTypes.contains(errorType);
  }

  /** The wait before attempt {@code attempt + 1}, after {@code attempt} failed ones: doubling, up to the maximum. */
  public Duration backoffAfter(int attempt) {
    Duration wait = firstBackoff;
    for (int i = 1; i < attempt && wait.compareTo(maxBackoff) < 0; i++) {
      wait = wait.multipliedBy(2);
    }
    return wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait;
  }

  @Override
  public String toString() {
    return "AlertProperties[enabled=" + enabled + ", endpoints=" + endpoints + ", secret=" + Secrets.mask(secret)
        + ", requestTimeout=" + print(requestTimeout) + ", maxAttempts=" + maxAttempts + ", firstBackoff="
        + print(firstBackoff) + ", maxBackoff=" + print(maxBackoff) + ", pollInterval=" + print(pollInterval)
        + ", claimTimeout=" + print(claimTimeout) + ", maxInFlight=" + maxInFlight + ", errorTypes=" + errorTypes
        + ", maxAge=" + print(maxAge) + ", uiBaseUrl=" + uiBaseUrl + "]";
  }

  /**
   * One webhook endpoint.
   *
   * @param name its name: in the deliveries' ids, the metrics' tags and the health details
   * @param url where the alerts are POSTed
   */
  public record Endpoint(String name, URI url) {}
}
