package dev.flowpipe.testsupport;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointProperties;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.Resource;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Every HTTP route a running Spring application serves, read from the application itself so that a new route cannot
 * be missed: its handler methods, the actuator's exposed operations as the actuator discovers them, and the UI's
 * static files. Each route comes as concrete requests (a sample value for each path variable, every alternative of a
 * variable's regex).
 */
public final class ServedRoutes {

  /** One concrete request for a route; {@code policyKey} is how {@link RoutePolicy#TABLE} names the route. */
  public record Route(String policyKey, String method, String path) {}

  private static final Pattern VARIABLE = Pattern.compile("\\{\\*?([A-Za-z]+)(?::([^}]+))?}");
  /** A key no test writes: routes with a key answer 404 or an error of their own, never a change. */
  static final String SAMPLE_KEY = "2251799813685249";

  private ServedRoutes() {}

  /** The routes of a running application. */
  public static List<Route> of(ConfigurableApplicationContext context) throws IOException {
    List<Route> routes = new ArrayList<>();
    RequestMappingHandlerMapping mapping =
        context.getBean("requestMappingHandlerMapping", RequestMappingHandlerMapping.class);
    for (RequestMappingInfo info : mapping.getHandlerMethods().keySet()) {
      Set<RequestMethod> methods = info.getMethodsCondition().getMethods();
      for (RequestMethod method : methods.isEmpty() ? Set.of(RequestMethod.GET, RequestMethod.POST) : methods) {
        for (String pattern : info.getPatternValues()) {
          concrete(pattern).forEach(path -> routes.add(new Route(method.name() + " " + policyPath(pattern),
              method.name(), path)));
        }
      }
    }
    String base = context.getBean(WebEndpointProperties.class).getBasePath();
    routes.add(new Route("GET " + base, "GET", base));
    for (WebEndpointsSupplier supplier : context.getBeansOfType(WebEndpointsSupplier.class).values()) {
      for (ExposableWebEndpoint endpoint : supplier.getEndpoints()) {
        for (WebOperation operation : endpoint.getOperations()) {
          String pattern = base + "/" + operation.getRequestPredicate().getPath();
          String method = operation.getRequestPredicate().getHttpMethod().name();
          concrete(pattern).forEach(path -> routes.add(new Route(method + " " + policyPath(pattern), method, path)));
        }
      }
    }
    routes.add(new Route("GET static", "GET", "/"));
    for (Resource file : context.getResources("classpath*:static/**")) {
      String url = file.getURL().toString();
      if (file.isReadable() && !url.endsWith("/")) {
        routes.add(new Route("GET static", "GET", url.substring(url.lastIndexOf("/static/") + "/static".length())));
      }
    }
    return routes.stream().distinct().toList();
  }

  /** The pattern as the policy table writes it: variables as {@code {name}}. */
  static String policyPath(String pattern) {
    return VARIABLE.matcher(pattern).replaceAll("{$1}");
  }

  /** Concrete paths for a pattern: each alternative of a variable's regex, else a sample value. */
  static List<String> concrete(String pattern) {
    Matcher variable = VARIABLE.matcher(pattern);
    if (!variable.find()) {
      return List.of(pattern);
    }
    List<String> values = new ArrayList<>();
    if (variable.group(2) != null && variable.group(2).matches("[a-z|-]+")) {
      values.addAll(List.of(variable.group(2).split("\\|")));
    } else {
      values.add(switch (variable.group(1)) {
        case "path" -> "liveness";
        case "requiredMetricName" -> "jvm.memory.used";
        default -> SAMPLE_KEY;
      });
    }
    Set<String> paths = new TreeSet<>();
    for (String value : values) {
      paths.addAll(concrete(pattern.substring(0, variable.start()) + value + pattern.substring(variable.end())));
    }
    return List.copyOf(paths);
  }
}
