package dev.flowpipe.webapp.config;

import jakarta.servlet.DispatcherType;
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
 * Read-only access: GET (and HEAD) everywhere, POST only to the search endpoints (and, inside the node, to its
 * flow-control settings); every other method is refused (403).
 * With {@code flowpipe.webapp.security.basic-auth} on, everything but the health probes needs the configured user.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {

  @Bean
  SecurityFilterChain webappSecurity(HttpSecurity http, WebappProperties properties) throws Exception {
    boolean basicAuth = properties.security().basicAuth();
    http.csrf(csrf -> csrf.disable()) // no sessions, no cookies: nothing for a cross-site request to ride on
        .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .requestCache(cache -> cache.disable())
        .authorizeHttpRequests(
            requests -> {
              requests.dispatcherTypeMatchers(DispatcherType.ERROR, DispatcherType.FORWARD).permitAll();
              requests.requestMatchers("/actuator/health", "/actuator/health/**").permitAll();
              allow(requests.requestMatchers(HttpMethod.GET), basicAuth);
              allow(requests.requestMatchers(HttpMethod.HEAD), basicAuth);
              allow(requests.requestMatchers(HttpMethod.POST, "/v2/*/search"), basicAuth);
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

  /** The one configured user, or none (which also keeps Spring Boot from generating a password). */
  @Bean
  UserDetailsService webappUsers(WebappProperties properties) {
    InMemoryUserDetailsManager users = new InMemoryUserDetailsManager();
    WebappProperties.Security security = properties.security();
    if (security.basicAuth()) {
      String password = security.password().startsWith("{") ? security.password() : "{noop}" + security.password();
      users.createUser(User.withUsername(security.username()).password(password).roles("READER").build());
    }
    return users;
  }
}
