package dev.flowpipe.webapp.config;

import static dev.flowpipe.settings.SettingRules.positive;
import static dev.flowpipe.settings.SettingRules.print;

import dev.flowpipe.settings.Secrets;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Everything the web app reads from YAML, under {@code flowpipe.webapp}. Each group validates itself when bound, so a
 * bad value stops start-up with a message naming the key and the value.
 *
 * @param search paging limits of the search API
 * @param consistency read-your-writes waiting
 * @param security HTTP basic authentication
 * @param ui the browser UI
 * @param operations the write operations (engine commands)
 * @param limits the budgets of one request: body size, list lengths, branches, fields
 */
@ConfigurationProperties("flowpipe.webapp")
public record WebappProperties(
    @DefaultValue Search search,
    @DefaultValue Consistency consistency,
    @DefaultValue Security security,
    @DefaultValue Ui ui,
    @DefaultValue Operations operations,
    @DefaultValue Limits limits) {

  /** Whether the operations are served: as configured, else exactly when users must authenticate. */
  public boolean operationsEnabled() {
    return operations.enabled() == null ? security.basicAuth() : operations.enabled();
  }

  private static final String P = "flowpipe.webapp.";

  /**
   * Paging limits and the store's time budget ({@code flowpipe.webapp.search.*}).
   *
   * @param defaultPageSize items per page when a request gives no {@code page.limit}
   * @param maxPageSize the largest {@code page.limit} a request may ask for
   * @param storeTimeout how long the store may run one search (the search body's {@code timeout}); a search that
   *     runs longer is answered 400 naming this setting
   * @param totalItemsCap how far a search of the API counts its matches: past it the answer says {@code totalItems}
   *     = the cap and {@code hasMoreTotalItems: true}, and the store need not visit every match (a numeric or date
   *     sort skips what cannot reach the page); 0 (the default) counts every match. A count ({@code page.limit: 0}) is
   *     always exact
   */
  public record Search(@DefaultValue("100") int defaultPageSize, @DefaultValue("10000") int maxPageSize,
      @DefaultValue("10s") Duration storeTimeout, @DefaultValue("0") int totalItemsCap) {
    public Search {
      positive(P + "search.store-timeout", storeTimeout);
      if (totalItemsCap < 0) {
        throw new IllegalArgumentException(P + "search.total-items-cap must be 0 (exact) or more, was " + totalItemsCap);
      }
      if (maxPageSize < 1 || maxPageSize > 10_000) {
        throw new IllegalArgumentException(P + "search.max-page-size must be 1 to 10000, was " + maxPageSize);
      }
      if (defaultPageSize < 1 || defaultPageSize > maxPageSize) {
        throw new IllegalArgumentException(
            P + "search.default-page-size must be 1 to max-page-size (" + maxPageSize + "), was " + defaultPageSize);
      }
    }
  }

  /**
   * Read-your-writes ({@code flowpipe.webapp.consistency.*}).
   *
   * @param defaultTimeout how long a consistency request waits when it names no {@code timeout}
   * @param maxTimeout the longest wait a request may ask for; longer asks are cut to this
   * @param pollInterval how often the waiting requests' conditions are looked up in the store (once for all of them)
   * @param maxWaits how many consistency requests may wait at once; one more is answered 429 with {@code Retry-After}
   */
  public record Consistency(
      @DefaultValue("5s") Duration defaultTimeout,
      @DefaultValue("30s") Duration maxTimeout,
      @DefaultValue("20ms") Duration pollInterval,
      @DefaultValue("1000") int maxWaits) {
    public Consistency {
      if (maxWaits < 1 || maxWaits > 100_000) {
        throw new IllegalArgumentException(P + "consistency.max-waits must be 1 to 100000, was " + maxWaits);
      }
      positive(P + "consistency.default-timeout", defaultTimeout);
      positive(P + "consistency.max-timeout", maxTimeout);
      positive(P + "consistency.poll-interval", pollInterval);
      if (defaultTimeout.compareTo(maxTimeout) > 0) {
        throw new IllegalArgumentException(
            P + "consistency.default-timeout must be <= max-timeout (" + print(maxTimeout) + "), was "
                + print(defaultTimeout));
      }
    }
  }

  /**
   * The budgets of one request ({@code flowpipe.webapp.limits.*}): each keeps what one request makes the node hold in
   * memory, or the store work, bounded. A request beyond one is answered 400 (413 for the body) naming the limit and
   * the value.
   *
   * @param maxBodySize the largest request body; a larger one is answered 413 before it is read (by its
   *     {@code Content-Length}) or as soon as that many bytes were read (a chunked body)
   * @param maxListValues the most values of one {@code $in} or {@code $notIn}
   * @param maxOrBranches the most filter objects of one {@code $or}
   * @param maxFilterConditions the most field conditions of one filter, counted across its {@code $or} branches
   * @param maxSortFields the most entries of {@code sort}
   * @param maxConsistencyPositions the most entries of {@code consistency.positions}
   * @param maxValueLength the longest string value in a filter, in characters ({@code $like} patterns included)
   */
  public record Limits(
      @DefaultValue("4MB") DataSize maxBodySize,
      @DefaultValue("1000") int maxListValues,
      @DefaultValue("50") int maxOrBranches,
      @DefaultValue("100") int maxFilterConditions,
      @DefaultValue("10") int maxSortFields,
      @DefaultValue("64") int maxConsistencyPositions,
      @DefaultValue("4096") int maxValueLength) {
    public Limits {
      if (maxBodySize == null || maxBodySize.toBytes() < 1024 || maxBodySize.toBytes() > 1024L * 1024 * 1024) {
        throw new IllegalArgumentException(P + "limits.max-body-size must be 1KB to 1GB, was " + maxBodySize);
      }
      between(P + "limits.max-list-values", maxListValues, 1, 65_536);
      between(P + "limits.max-or-branches", maxOrBranches, 1, 1_000);
      between(P + "limits.max-filter-conditions", maxFilterConditions, 1, 10_000);
      between(P + "limits.max-sort-fields", maxSortFields, 1, 100);
      between(P + "limits.max-consistency-positions", maxConsistencyPositions, 1, 10_000);
      between(P + "limits.max-value-length", maxValueLength, 1, 1_000_000);
    }

    private static void between(String key, int value, int min, int max) {
      if (value < min || value > max) {
        throw new IllegalArgumentException(key + " must be " + min + " to " + max + ", was " + value);
      }
    }
  }

  /**
   * HTTP basic authentication ({@code flowpipe.webapp.security.*}); off by default (the app binds to loopback).
   *
   * @param basicAuth require a user name and password for the UI and the API
   * @param username a user who may read (search and the UI), optional when {@code users} are given
   * @param password its password, plain or in Spring Security's {@code {id}hash} form; never printed
   * @param users further users, each with its roles: {@code read} (search and the UI), {@code write} (the operations,
   *     and read), {@code admin} (flow control and every other state-changing actuator endpoint, and read)
   * @param actuatorWritesEnabled without authentication, serve the actuator's state-changing operations (e.g. {@code
   *     POST /actuator/flowControl}) to anyone who reaches the port; off by default (403). With authentication they
   *     need the {@code admin} role and this setting is ignored
   */
  public record Security(@DefaultValue("false") boolean basicAuth, String username, String password,
      @DefaultValue List<User> users, @DefaultValue("false") boolean actuatorWritesEnabled) {
    public Security {
      if (username != null && !username.isBlank() && (password == null || password.isEmpty())) {
        throw new IllegalArgumentException(P + "security.password must be set with security.username, was empty");
      }
      if (basicAuth && (username == null || username.isBlank()) && users.isEmpty()) {
        throw new IllegalArgumentException(P + "security.username must be set when basic-auth is on (or users given"
            + " in " + P + "security.users), was '" + username + "'");
      }
      users = List.copyOf(users);
      for (int i = 0; i < users.size(); i++) {
        users.get(i).check(P + "security.users[" + i + "]");
      }
    }

    /** Every user with its roles: {@code username} as a reader, then {@code users}. */
    public List<User> allUsers() {
      List<User> all = new java.util.ArrayList<>();
      if (username != null && !username.isBlank()) {
        all.add(new User(username, password, List.of(Role.READ)));
      }
      all.addAll(users);
      return all;
    }

    @Override
    public String toString() {
      return "Security[basicAuth=" + basicAuth + ", username=" + username + ", password="
          + Secrets.mask(password) + ", users=" + users + ", actuatorWritesEnabled="
          + actuatorWritesEnabled + "]";
    }
  }

  /** What a user may do. */
  public enum Role {
    /** Search, the UI and the actuator's reports. */
    READ,
    /** The operations (engine commands, batch operations), and what {@code READ} may. */
    WRITE,
    /** Runtime flow control and every other state-changing actuator operation, and what {@code READ} may. */
    ADMIN,
    /**
     * Migrating instances to another definition, where {@code operations.migration-role} is {@code migrate} (then
     * {@code WRITE} alone may not), and what {@code READ} may.
     */
    MIGRATE,
    /**
     * Deleting finished instances (single and batch), where {@code operations.deletion-role} is {@code delete} (then
     * {@code WRITE} alone may not), and what {@code READ} may.
     */
    DELETE;

    /** This role with the roles it implies: every role reads. */
    public java.util.Set<Role> withImplied() {
      return this == READ ? java.util.EnumSet.of(READ) : java.util.EnumSet.of(this, READ);
    }
  }

  /**
   * One user ({@code flowpipe.webapp.security.users[i]}).
   *
   * @param password plain or in Spring Security's {@code {id}hash} form; never printed
   * @param roles any of {@code read}, {@code write}, {@code admin}, {@code migrate}, {@code delete} (default
   *     {@code read}); each
   *     implies {@code read}
   */
  public record User(String username, String password, @DefaultValue("read") List<Role> roles) {
    void check(String key) {
      if (username == null || username.isBlank()) {
        throw new IllegalArgumentException(key + ".username must be set, was '" + username + "'");
      }
      if (password == null || password.isEmpty()) {
        throw new IllegalArgumentException(key + ".password must be set, was empty");
      }
      if (roles == null || roles.isEmpty()) {
        throw new IllegalArgumentException(key + ".roles must name read, write, admin, migrate and/or delete, was empty");
      }
    }

    @Override
    public String toString() {
      return "User[username=" + username + ", password=" + Secrets.mask(password) + ", roles=" + roles + "]";
    }
  }

  /**
   * The write operations ({@code flowpipe.webapp.operations.*}).
   *
   * @param enabled serve them; unset: exactly when {@code security.basic-auth} is on (without authentication anyone
   *     who reaches the port could cancel instances)
   * @param gatewayAddress {@code host:port} of the Zeebe gateway the web app on its own sends the commands to; inside
   *     the node, ignored (the node's own gateway is used); unset: the operations answer 501
   * @param requestTimeout how long a command may wait for the engine's answer
   * @param batchParallelism how many commands of a batch operation are in flight at once
   * @param batchMaxItems the most items one batch operation may have; a filter matching more is refused
   * @param batchLeaseExpiry how long the web app running a batch may leave its lease unrenewed before another web
   *     app sharing the store (or this one's next start) takes the batch up; renewed every third of it
   * @param migrationRole the role a user needs to migrate instances to another definition version: {@code write}
   *     (default, as every other operation) or {@code migrate}, a role of its own (then {@code write} alone may not)
   * @param deletionRole the role a user needs to delete finished instances, singly or in a batch: {@code write}
   *     (default) or {@code delete}, a role of its own (then {@code write} alone may not)
   */
  public record Operations(Boolean enabled, String gatewayAddress, @DefaultValue("20s") Duration requestTimeout,
      @DefaultValue("4") int batchParallelism, @DefaultValue("10000") int batchMaxItems,
      @DefaultValue("15s") Duration batchLeaseExpiry, @DefaultValue("write") Role migrationRole,
      @DefaultValue("write") Role deletionRole) {
    public Operations {
      if (deletionRole != Role.WRITE && deletionRole != Role.DELETE) {
        throw new IllegalArgumentException(P + "operations.deletion-role must be write or delete, was "
            + (deletionRole == null ? "empty" : deletionRole.name().toLowerCase(java.util.Locale.ROOT)));
      }
      if (migrationRole != Role.WRITE && migrationRole != Role.MIGRATE) {
        throw new IllegalArgumentException(P + "operations.migration-role must be write or migrate, was "
            + (migrationRole == null ? "empty" : migrationRole.name().toLowerCase(java.util.Locale.ROOT)));
      }
      positive(P + "operations.request-timeout", requestTimeout);
      if (batchLeaseExpiry == null || batchLeaseExpiry.compareTo(Duration.ofSeconds(1)) < 0
          || batchLeaseExpiry.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException(P + "operations.batch-lease-expiry must be 1s to 1h, was "
            + batchLeaseExpiry);
      }
      if (batchParallelism < 1 || batchParallelism > 64) {
        throw new IllegalArgumentException(P + "operations.batch-parallelism must be 1 to 64, was " + batchParallelism);
      }
      if (batchMaxItems < 1 || batchMaxItems > 1_000_000) {
        throw new IllegalArgumentException(P + "operations.batch-max-items must be 1 to 1000000, was "
            + batchMaxItems);
      }
      if (gatewayAddress != null && !gatewayAddress.isBlank()
          && !gatewayAddress.trim().matches("[A-Za-z0-9.\\-\\[\\]:]+:\\d{1,5}")) {
        throw new IllegalArgumentException(P + "operations.gateway-address must be host:port, was '" + gatewayAddress
            + "'");
      }
    }
  }

  /**
   * The browser UI ({@code flowpipe.webapp.ui.*}).
   *
   * @param refreshInterval how often open lists and pages reload themselves
   */
  public record Ui(@DefaultValue("1s") Duration refreshInterval) {
    public Ui {
      positive(P + "ui.refresh-interval", refreshInterval);
    }
  }
}
