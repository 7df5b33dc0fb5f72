package dev.flowpipe.testsupport;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Who may call which HTTP route of the web app, wherever it runs (the node, the server): the policy written out
 * independently of the security configuration, so that a test compares the answers with it. Routes are
 * {@code METHOD path} with path variables as {@code {name}} (a variable's regex dropped); {@code GET static} stands for
 * every file of the UI. A route missing here is a route nobody has classified: the tests fail on it.
 */
public final class RoutePolicy {

  /** What a route needs. */
  public enum Access { PUBLIC, READ, WRITE, ADMIN, NOBODY }

  public static final Map<String, Access> TABLE = Map.ofEntries(
      Map.entry("GET /actuator/health", Access.PUBLIC),
      Map.entry("GET /actuator/health/{path}", Access.PUBLIC),
      Map.entry("GET /actuator", Access.READ),
      Map.entry("GET /actuator/info", Access.READ),
      Map.entry("GET /actuator/metrics", Access.READ),
      Map.entry("GET /actuator/metrics/{requiredMetricName}", Access.READ),
      Map.entry("GET /actuator/prometheus", Access.READ),
      Map.entry("GET /actuator/flowControl", Access.READ),
      Map.entry("POST /actuator/flowControl", Access.ADMIN),
      Map.entry("GET static", Access.READ),
      Map.entry("GET /ui/config", Access.READ),
      Map.entry("GET /ui/openapi", Access.READ),
      Map.entry("GET /ui/live", Access.READ),
      Map.entry("GET /ui/export/process-instances.csv", Access.READ),
      Map.entry("GET /error", Access.READ),
      Map.entry("POST /error", Access.NOBODY),
      Map.entry("POST /v2/{entity}/search", Access.READ),
      Map.entry("GET /v2/{entity}/{key}", Access.READ),
      Map.entry("GET /v2/process-definitions/{key}/xml", Access.READ),
      Map.entry("GET /v2/decision-definitions/{key}/xml", Access.READ),
      Map.entry("GET /v2/decision-requirements/{key}/xml", Access.READ),
      Map.entry("POST /v2/process-definitions/statistics/process-instances", Access.READ),
      Map.entry("POST /v2/process-definitions/{processDefinitionKey}/statistics/element-instances", Access.READ),
      Map.entry("POST /v2/process-definitions/{processDefinitionKey}/statistics/element-durations", Access.READ),
      Map.entry("GET /v2/process-instances/{processInstanceKey}/statistics/element-instances", Access.READ),
      Map.entry("GET /v2/process-instances/{processInstanceKey}/sequence-flows", Access.READ),
      Map.entry("GET /v2/process-instances/{processInstanceKey}/call-hierarchy", Access.READ),
      Map.entry("POST /v2/process-instances/{processInstanceKey}/incidents/search", Access.READ),
      Map.entry("POST /v2/process-definitions/statistics/process-instances-by-version", Access.READ),
      Map.entry("POST /v2/incidents/statistics/process-instances-by-error", Access.READ),
      Map.entry("POST /v2/incidents/statistics/process-instances-by-definition", Access.READ),
      Map.entry("GET /v2/batch-operations/{batchOperationKey}", Access.READ),
      Map.entry("GET /v2/topology", Access.READ),
      Map.entry("GET /v2/status", Access.PUBLIC),
      Map.entry("POST /v2/batch-operation-items/search", Access.READ),
      Map.entry("POST /v2/audit-logs/search", Access.READ),
      Map.entry("GET /v2/audit-logs/{auditLogKey}", Access.READ),
      Map.entry("POST /v2/process-instances", Access.WRITE),
      Map.entry("POST /v2/process-instances/{processInstanceKey}/cancellation", Access.WRITE),
      // with operations.migration-role at its default (write); the migrate role of its own: OperationsAccessTest
      Map.entry("POST /v2/process-instances/{processInstanceKey}/modification", Access.WRITE),
      Map.entry("POST /v2/process-instances/{processInstanceKey}/migration", Access.WRITE),
      // with operations.deletion-role at its default (write); the delete role of its own: OperationsAccessTest
      Map.entry("POST /v2/process-instances/{processInstanceKey}/deletion", Access.WRITE),
      Map.entry("POST /v2/process-instances/deletion", Access.WRITE),
      Map.entry("POST /v2/incidents/{incidentKey}/resolution", Access.WRITE),
      Map.entry("PATCH /v2/jobs/{key}", Access.WRITE),
      Map.entry("PUT /v2/element-instances/{elementInstanceKey}/variables", Access.WRITE),
      Map.entry("POST /v2/messages/publication", Access.WRITE),
      Map.entry("POST /v2/process-instances/cancellation", Access.WRITE),
      Map.entry("POST /v2/process-instances/incident-resolution", Access.WRITE),
      Map.entry("POST /v2/process-instances/modification", Access.WRITE),
      // with operations.migration-role at its default (write), as the single migration
      Map.entry("POST /v2/process-instances/migration", Access.WRITE),
      Map.entry("POST /v2/batch-operations/search", Access.READ),
      Map.entry("POST /v2/batch-operations/{batchOperationKey}/suspension", Access.WRITE),
      Map.entry("POST /v2/batch-operations/{batchOperationKey}/resumption", Access.WRITE),
      Map.entry("POST /v2/batch-operations/{batchOperationKey}/cancellation", Access.WRITE));

  /**
   * A caller: a configured user, or nobody; {@code grants} is what it may call with authentication on (every role
   * reads; {@code write} and {@code admin} are apart).
   */
  public record Caller(String name, String user, String password, String role, Set<Access> grants) {

    public boolean anonymous() {
      return user == null;
    }
  }

  public static final Caller ANONYMOUS = new Caller("anonymous", null, null, null, Set.of(Access.PUBLIC));
  public static final Caller READER = new Caller("reader", "reader", "r", "read", Set.of(Access.PUBLIC, Access.READ));
  public static final Caller WRITER =
      new Caller("writer", "writer", "w", "write", Set.of(Access.PUBLIC, Access.READ, Access.WRITE));
  public static final Caller ADMIN =
      new Caller("admin", "admin", "a", "admin", Set.of(Access.PUBLIC, Access.READ, Access.ADMIN));

  /** Every caller, anonymous first. */
  public static final List<Caller> CALLERS = List.of(ANONYMOUS, READER, WRITER, ADMIN);

  private RoutePolicy() {}

  /** Authentication on with the reader, the writer and the admin as users (the web app's keys, node and server alike). */
  public static Map<String, Object> withAuthentication() {
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("flowpipe.webapp.security.basic-auth", true);
    List<Caller> users = List.of(READER, WRITER, ADMIN);
    for (int i = 0; i < users.size(); i++) {
      settings.put("flowpipe.webapp.security.users[" + i + "].username", users.get(i).user());
      settings.put("flowpipe.webapp.security.users[" + i + "].password", users.get(i).password());
      settings.put("flowpipe.webapp.security.users[" + i + "].roles", users.get(i).role());
    }
    return settings;
  }

  /** With authentication on: each caller may call what its grants say (anonymous the public routes only). */
  public static Map<Caller, Predicate<Access>> byGrants() {
    Map<Caller, Predicate<Access>> allowed = new LinkedHashMap<>();
    CALLERS.forEach(caller -> allowed.put(caller, caller.grants()::contains));
    return allowed;
  }

  /** Authentication off (the default), the operations and the actuator's writes off: anyone reads, nobody writes. */
  public static Map<Caller, Predicate<Access>> readersOnly() {
    return Map.of(ANONYMOUS, access -> access == Access.PUBLIC || access == Access.READ);
  }

  /** Authentication off with the writes switched on: anyone calls anything but what nobody may. */
  public static Map<Caller, Predicate<Access>> anyoneButNobodysRoutes() {
    return Map.of(ANONYMOUS, access -> access != Access.NOBODY);
  }

  /** Authentication off with the operations and the actuator's writes switched on. */
  public static Map<String, Object> withoutAuthenticationWritesOn() {
    return Map.of("flowpipe.webapp.operations.enabled", true,
        "flowpipe.webapp.security.actuator-writes-enabled", true);
  }

  /** A route's access; a route the table does not classify fails. */
  public static Access of(ServedRoutes.Route route) {
    Access access = TABLE.get(route.policyKey());
    if (access == null) {
      throw new AssertionError("the route policy does not classify " + route.policyKey() + " (" + route.path()
          + "): add it to RoutePolicy.TABLE");
    }
    return access;
  }

  /** Whether a route of this access changes state: the writes a browser on another site must not be made to send. */
  public static boolean changesState(Access access) {
    return access == Access.WRITE || access == Access.ADMIN;
  }
}
