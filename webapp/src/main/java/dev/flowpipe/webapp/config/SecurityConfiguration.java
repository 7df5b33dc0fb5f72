package dev.flowpipe.webapp.config;

import jakarta.servlet.DispatcherType;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AuthorizeHttpRequestsConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Reading: GET (and HEAD) everywhere, POST to the search and statistics endpoints (and, inside the node, to its flow-control
 * settings). Writing: the operations' endpoints ({@link #OPERATIONS}), only where the operations are on (see
 * {@link WebappProperties#operationsEnabled()}) and, with authentication, for users with the {@code write} role.
 * Every other method and path is refused (403). With {@code flowpipe.webapp.security.basic-auth} on, everything but
 * the health probes needs a configured user.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(SecurityConfiguration.class);

  /** The operations' endpoints, by method. */
  static final Map<HttpMethod, List<String>> OPERATIONS = Map.of(
      HttpMethod.POST, List.of("/v2/process-instances", "/v2/process-instances/*/cancellation",
          "/v2/incidents/*/resolution", "/v2/messages/publication", "/v2/process-instances/cancellation",
          "/v2/process-instances/incident-resolution"),
      HttpMethod.PATCH, List.of("/v2/jobs/*"),
      HttpMethod.PUT, List.of("/v2/element-instances/*/variables"));

  @Bean
  SecurityFilterChain webappSecurity(HttpSecurity http, WebappProperties properties) throws Exception {
    boolean basicAuth = properties.security().basicAuth();
    boolean operations = properties.operationsEnabled();
    if (operations && !basicAuth) {
      LOG.warn("flowpipe.webapp.operations.enabled is true with authentication off: anyone who reaches this port can"
          + " cancel instances and change variables");
    }
    http.csrf(csrf -> csrf.disable()) // no sessions, no cookies: nothing for a cross-site request to ride on
        .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .requestCache(cache -> cache.disable())
        .authorizeHttpRequests(
            requests -> {
              requests.dispatcherTypeMatchers(DispatcherType.ERROR, DispatcherType.FORWARD).permitAll();
              requests.requestMatchers("/actuator/health", "/actuator/health/**").permitAll();
              OPERATIONS.forEach((method, paths) -> {
                var matcher = requests.requestMatchers(method, paths.toArray(String[]::new));
                if (!operations) {
                  matcher.denyAll();
                } else if (basicAuth) {
                  matcher.hasRole(WebappProperties.Role.WRITE.name());
                } else {
                  matcher.permitAll();
                }
              });
              allow(requests.requestMatchers(HttpMethod.GET), basicAuth);
              allow(requests.requestMatchers(HttpMethod.HEAD), basicAuth);
              allow(requests.requestMatchers(HttpMethod.POST, "/v2/*/search"), basicAuth);
              // searches under other names: counts per process and per element
              allow(requests.requestMatchers(HttpMethod.POST, "/v2/process-definitions/statistics/process-instances",
                  "/v2/process-definitions/*/statistics/element-instances"), basicAuth);
              // the node's flow-control settings: an actuator write operation that exists only inside the node
              allow(requests.requestMatchers(HttpMethod.POST, "/actuator/flowControl"), basicAuth);
              requests.anyRequest().denyAll();
            });
    if (basicAuth) {
      http.httpBasic(Customizer.withDefaults());
    } else {
      http.httpBasic(basic -> basic.disable());
    }
    return http.build();
  }

  private static void allow(AuthorizeHttpRequestsConfigurer<HttpSecurity>.AuthorizedUrl matcher, boolean basicAuth) {
    if (basicAuth) {
      matcher.authenticated();
    } else {
      matcher.permitAll();
    }
  }

  /**
   * The configured users with their roles ({@code write} implies {@code read}), or none (which also keeps Spring Boot
   * from generating a password).
   */
  @Bean
  UserDetailsService webappUsers(WebappProperties properties) {
    InMemoryUserDetailsManager users = new InMemoryUserDetailsManager();
    WebappProperties.Security security = properties.security();
    if (security.basicAuth()) {
      for (WebappProperties.User user : security.allUsers()) {
        String password = user.password().startsWith("{") ? user.password() : "{noop}" + user.password();
        users.createUser(User.withUsername(user.username()).password(password)
            .roles(user.roles().stream().map(Enum::name).distinct().toArray(String[]::new)).build());
      }
    }
    return users;
  }
}
