package dev.flowpipe.benchmarks.scenario.operations;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import dev.flowpipe.testsupport.StoreProxy;

/**
 * The store requests one refresh of a UI page costs: the page's API calls, sent as the UI sends them, with a counting
 * proxy between the web app and the store. Bulks are the exporter's, not the page's, and are left out; a few
 * repetitions, the fewest counted (a request of the node's own, e.g. a health check, may fall into one of them).
 */
public final class RefreshRequests {

  /** One API call of a page's refresh. */
  public record ApiCall(String method, String path, String body) {}

  /**
   * What one refresh of a page cost.
   *
   * @param page the page and the way it refreshed ("dashboard, now")
   * @param refreshSeconds the page's refresh interval
   * @param apiCalls the web app requests of one refresh
   * @param storeRequests the fewest store requests one refresh caused over the repetitions
   * @param storeRequestsEachRepetition the count of each repetition
   * @param byKind the store requests of the fewest repetition, by method and operation
   * @param perMinute store requests a minute at the refresh interval
   */
  public record Count(String page, double refreshSeconds, int apiCalls, long storeRequests,
      List<Long> storeRequestsEachRepetition, Map<String, Long> byKind, double perMinute) {}

  private static final int REPETITIONS = 5;

  private final WebappClient webapp;
  private final StoreProxy proxy;

  public RefreshRequests(WebappClient webapp, StoreProxy proxy) {
    this.webapp = webapp;
    this.proxy = proxy;
  }

  /** Counts one refresh of {@code calls} (made afresh for each repetition, as a page builds them from its answers). */
  public Count count(String page, double refreshSeconds, Supplier<List<ApiCall>> calls) {
    List<Long> totals = new ArrayList<>();
    Map<String, Long> fewest = null;
    int apiCalls = 0;
    for (int i = 0; i < REPETITIONS; i++) {
      List<ApiCall> refresh = calls.get();
      apiCalls = refresh.size();
      proxy.resetRequestCounts();
      for (ApiCall call : refresh) {
        webapp.expect(200, call.method(), call.path(), call.body());
      }
      Map<String, Long> counted = new TreeMap<>(proxy.requestCounts());
      counted.keySet().removeIf(kind -> kind.endsWith(" _bulk"));
      long total = counted.values().stream().mapToLong(Long::longValue).sum();
      if (fewest == null || total < totals.stream().mapToLong(Long::longValue).min().orElseThrow()) {
        fewest = counted;
      }
      totals.add(total);
    }
    long min = totals.stream().mapToLong(Long::longValue).min().orElseThrow();
    Count count = new Count(page, refreshSeconds, apiCalls, min, List.copyOf(totals), fewest,
        Math.round(min * 60 / refreshSeconds * 10) / 10.0);
    System.out.printf("%-45s %3d API calls, %4d store requests per refresh, %7.1f a minute (each: %s)%n", page,
        apiCalls, min, count.perMinute(), totals);
    return count;
  }
}
