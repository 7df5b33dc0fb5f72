package dev.flowpipe.webapp.config;

import dev.flowpipe.webapp.config.WebappProperties.Role;
import jakarta.servlet.DispatcherType;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.autoconfigure.security.servlet.EndpointRequest;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AuthorizeHttpRequestsConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.csrf.CsrfFilter;
import org.springframework.security.web.header.writers.ContentSecurityPolicyHeaderWriter;
import org.springframework.security.web.header.writers.DelegatingRequestMatcherHeaderWriter;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.NegatedRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;

/**
 * Who may do what, deny by default. Public: the health probes (details only for a signed-in user, see
 * {@link HealthDetailsDefault}). {@code read}: GET and HEAD (the UI, the API's gets, the actuator's reports) and the
 * search and statistics POSTs. {@code write}: the operations ({@link #OPERATIONS}), only where they are on (see
 * {@link WebappProperties#operationsEnabled()}). {@code admin}: every actuator operation but a GET (flow control,
 * loggers...). Anything else is refused (403). Without authentication, reading is open to all, the operations only
 * where switched on and the actuator's writes only with {@code security.actuator-writes-enabled}.
 *
 * <p>Every state-changing request (any method but GET, HEAD, OPTIONS, TRACE, bar the searches) must also pass
 * {@link SameOriginWrites} (JSON, same origin), and every answer
 * carries a {@code Content-Security-Policy}: the UI's allows scripts from this origin only; the API's (and the
 * actuator's) sandboxes whatever a browser opens, so stored BPMN or a variable's value never runs as script here.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(SecurityConfiguration.class);

  /** The operations' endpoints, by method. */
  static final Map<HttpMethod, List<String>> OPERATIONS = Map.of(
      HttpMethod.POST, List.of("/v2/process-instances", "/v2/process-instances/*/cancellation",
          "/v2/process-instances/*/modification",
          "/v2/incidents/*/resolution", "/v2/messages/publication", "/v2/process-instances/cancellation",
          "/v2/process-instances/incident-resolution", "/v2/process-instances/modification",
          "/v2/batch-operations/*/suspension", "/v2/batch-operations/*/resumption",
          "/v2/batch-operations/*/cancellation"),
      HttpMethod.PATCH, List.of("/v2/jobs/*"),
      HttpMethod.PUT, List.of("/v2/element-instances/*/variables"));

  /** Migrating an instance, or a batch of them: the role {@code operations.migration-role} names ({@code write} by default). */
  static final String[] MIGRATION = {"/v2/process-instances/*/migration", "/v2/process-instances/migration"};

  /** Deleting finished instances, one or a batch: the role {@code operations.deletion-role} names. */
  static final List<String> DELETION = List.of("/v2/process-instances/*/deletion", "/v2/process-instances/deletion");

  /** The searches: POSTs that change nothing. */
  static final List<String> SEARCHES = List.of("/v2/*/search", "/v2/process-instances/*/incidents/search",
      "/v2/process-definitions/statistics/process-instances",
      "/v2/process-definitions/*/statistics/element-instances", "/v2/process-definitions/*/statistics/element-durations",
      "/v2/process-definitions/statistics/process-instances-by-version", "/v2/incidents/statistics/*");

  /**
   * The UI's pages: scripts, styles and connections of this origin only, no inline script or style, no {@code eval}
   * (bpmn-js sets its styles through the DOM, which this allows; {@code HostileContentInBrowserTest} watches for
   * violations).
   */
  static final String UI_POLICY = "default-src 'self'; script-src 'self'; style-src 'self';"
      + " img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; frame-ancestors 'none';"
      + " base-uri 'self'; form-action 'self'";

  /** Answers of the API and the actuator, opened as a page: nothing loads, nothing runs. */
  public static final String DOCUMENT_POLICY = "sandbox; default-src 'none'; frame-ancestors 'none'; base-uri 'none';"
      + " form-action 'none'";

  @Bean
  SecurityFilterChain webappSecurity(HttpSecurity http, WebappProperties properties, Environment environment)
      throws Exception {
    WebappProperties.Security security = properties.security();
    boolean basicAuth = security.basicAuth();
    boolean operations = properties.operationsEnabled();
    OpenBindings.warnings(environment, basicAuth).forEach(LOG::warn);
    if (operations && !basicAuth) {
      LOG.warn("flowpipe.webapp.operations.enabled is true with authentication off: anyone who reaches this port can"
          + " cancel instances and change variables");
    }
    if (security.actuatorWritesEnabled() && !basicAuth) {
      LOG.warn("flowpipe.webapp.security.actuator-writes-enabled is true with authentication off: anyone who reaches"
          + " this port can change flow control and the other actuator settings");
    }
    RequestMatcher api = new OrRequestMatcher(PathPatternRequestMatcher.withDefaults().matcher("/v2/**"),
        EndpointRequest.toAnyEndpoint());
    http.csrf(csrf -> csrf.disable()) // replaced by SameOriginWrites: no sessions, and a JSON body is required
        .addFilterAt(new SameOriginWrites(searches(), batchStateChanges()), CsrfFilter.class)
        .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .requestCache(cache -> cache.disable())
        .headers(headers -> headers
            .addHeaderWriter(new DelegatingRequestMatcherHeaderWriter(api,
                new ContentSecurityPolicyHeaderWriter(DOCUMENT_POLICY)))
            .addHeaderWriter(new DelegatingRequestMatcherHeaderWriter(new NegatedRequestMatcher(api),
                new ContentSecurityPolicyHeaderWriter(UI_POLICY))))
        .authorizeHttpRequests(
            requests -> {
              requests.dispatcherTypeMatchers(DispatcherType.ERROR, DispatcherType.FORWARD).permitAll();
              requests.requestMatchers(EndpointRequest.to(HealthEndpoint.class).withHttpMethod(HttpMethod.GET))
                  .permitAll();
              // as Camunda's v2 spec: a load balancer asks whether the cluster takes work without credentials
              requests.requestMatchers(HttpMethod.GET, "/v2/status").permitAll();
              require(requests.requestMatchers(EndpointRequest.toAnyEndpoint().withHttpMethod(HttpMethod.GET)),
                  basicAuth, Role.READ, true);
              require(requests.requestMatchers(EndpointRequest.toAnyEndpoint().withHttpMethod(HttpMethod.HEAD)),
                  basicAuth, Role.READ, true);
              // every other method on an actuator endpoint changes something: flowControl, loggers...
              require(requests.requestMatchers(EndpointRequest.toAnyEndpoint()), basicAuth, Role.ADMIN,
                  security.actuatorWritesEnabled());
              require(requests.requestMatchers(HttpMethod.POST, MIGRATION), basicAuth,
                  properties.operations().migrationRole(), operations);
              require(requests.requestMatchers(HttpMethod.POST, DELETION.toArray(String[]::new)), basicAuth,
                  properties.operations().deletionRole(), operations);
              OPERATIONS.forEach((method, paths) -> require(
                  requests.requestMatchers(method, paths.toArray(String[]::new)), basicAuth, Role.WRITE, operations));
              require(requests.requestMatchers(HttpMethod.GET), basicAuth, Role.READ, true);
              require(requests.requestMatchers(HttpMethod.HEAD), basicAuth, Role.READ, true);
              require(requests.requestMatchers(searches()), basicAuth, Role.READ, true);
              requests.anyRequest().denyAll();
            });
    if (basicAuth) {
      http.httpBasic(Customizer.withDefaults());
    } else {
      http.httpBasic(basic -> basic.disable());
    }
    return http.build();
  }

  /** What Camunda's 8.8 client sends with no body and no type: the changes of a batch's state (SameOriginWrites). */
  private static RequestMatcher batchStateChanges() {
    return new OrRequestMatcher(Stream.of("suspension", "resumption", "cancellation").<RequestMatcher>map(change ->
        PathPatternRequestMatcher.withDefaults().matcher(HttpMethod.POST, "/v2/batch-operations/*/" + change)).toList());
  }

  private static RequestMatcher searches() {
    return new OrRequestMatcher(SEARCHES.stream().<RequestMatcher>map(
        path -> PathPatternRequestMatcher.withDefaults().matcher(HttpMethod.POST, path)).toList());
  }

  /**
   * With authentication: the role. Without: open where {@code openWithoutAuthentication} (reading; the writes only
   * where switched on), else refused.
   */
  private static void require(AuthorizeHttpRequestsConfigurer<HttpSecurity>.AuthorizedUrl matcher, boolean basicAuth,
      Role role, boolean openWithoutAuthentication) {
    if (basicAuth) {
      matcher.hasRole(role.name());
    } else if (openWithoutAuthentication) {
      matcher.permitAll();
    } else {
      matcher.denyAll();
    }
  }

  /**
   * The configured users with their roles and the roles those imply ({@code write} and {@code admin} read), or none
   * (which also keeps Spring Boot from generating a password).
   */
  @Bean
  UserDetailsService webappUsers(WebappProperties properties) {
    InMemoryUserDetailsManager users = new InMemoryUserDetailsManager();
    WebappProperties.Security security = properties.security();
    if (security.basicAuth()) {
      for (WebappProperties.User user : security.allUsers()) {
        String password = user.password().startsWith("{") ? user.password() : "{noop}" + user.password();
        users.createUser(User.withUsername(user.username()).password(password)
            .roles(user.roles().stream().flatMap(role -> role.withImplied().stream()).map(Enum::name).distinct()
                .toArray(String[]::new)).build());
      }
    }
    return users;
  }
}
