package dev.flowpipe.testsupport;

import dev.flowpipe.testsupport.RoutePolicy.Access;
import dev.flowpipe.testsupport.RoutePolicy.Caller;
import dev.flowpipe.testsupport.ServedRoutes.Route;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Sends an application's routes as the callers of {@link RoutePolicy} and compares the answers with the policy: what
 * a caller may call is neither 401 nor 403, anything else is refused (anonymous callers asked to sign in or refused,
 * users 403). The checks collect every wrong answer, so one run names them all.
 */
public final class RouteRequests {

  /** Another site, as a browser names it in {@code Origin} when that site's page sends a request here. */
  public static final String OTHER_SITE = "https://elsewhere.example";

  private final String base;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** The application on this loopback port. */
  public RouteRequests(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  /**
   * Every route as each caller: the answers against the policy ({@code allowed} says what each caller may call; a
   * refused anonymous caller must get {@code anonymousRefusal}, a refused user 403).
   */
  public List<String> answersAgainstThePolicy(List<Route> routes, Map<Caller, Predicate<Access>> allowed,
      int anonymousRefusal) {
    List<String> wrong = new ArrayList<>();
    for (Route route : routes) {
      Access access = RoutePolicy.of(route);
      allowed.forEach((caller, mayCall) -> {
        int status = send(route, caller, "{}", Map.of()).statusCode();
        boolean refused = status == 401 || status == 403;
        int refusal = caller.anonymous() ? anonymousRefusal : 403;
        if (mayCall.test(access) ? refused : status != refusal) {
          wrong.add(caller.name() + " " + route.method() + " " + route.path() + " (" + access + "): " + status
              + ", expected " + (mayCall.test(access) ? "neither 401 nor 403" : refusal));
        }
      });
    }
    return wrong;
  }

  /**
   * Every state-changing route, sent by a caller the policy lets call it, as another site's page would make a browser
   * send it: the caller's cached credentials and a JSON body, with the browser's {@code Origin} naming the other site,
   * or its {@code Sec-Fetch-Site: cross-site}. Each must be refused with a 403 naming that header; the same request
   * with this site's own {@code Origin} must pass (so the header, not the request, is what is refused). Returns the
   * answers that are not so, and how many requests were sent.
   */
  public CrossSiteOutcome crossSiteWrites(List<Route> routes, Map<Caller, Predicate<Access>> allowed) {
    List<String> wrong = new ArrayList<>();
    int sent = 0;
    for (Route route : routes) {
      Access access = RoutePolicy.of(route);
      Optional<Caller> caller = allowed.entrySet().stream().filter(entry -> entry.getValue().test(access))
          .map(Map.Entry::getKey).findFirst();
      if (!RoutePolicy.changesState(access) || caller.isEmpty()) {
        continue;
      }
      for (Map.Entry<String, String> header : List.of(Map.entry("Origin", OTHER_SITE),
          Map.entry("Sec-Fetch-Site", "cross-site"))) {
        HttpResponse<String> answer = send(route, caller.get(), "{}", Map.of(header.getKey(), header.getValue()));
        sent++;
        if (answer.statusCode() != 403 || !answer.body().contains(header.getKey() + ": " + header.getValue())) {
          wrong.add(caller.get().name() + " " + route.method() + " " + route.path() + " with " + header.getKey() + ": "
              + header.getValue() + ": " + answer.statusCode() + " " + answer.body() + ", expected 403 naming it");
        }
      }
      int sameSite = send(route, caller.get(), "{}", Map.of("Origin", base, "Sec-Fetch-Site", "same-origin"))
          .statusCode();
      sent++;
      if (sameSite == 401 || sameSite == 403) {
        wrong.add(caller.get().name() + " " + route.method() + " " + route.path() + " from this site's own origin: "
            + sameSite + ", expected neither 401 nor 403");
      }
    }
    return new CrossSiteOutcome(sent, wrong);
  }

  /** What {@link #crossSiteWrites} found: requests sent, and the answers that were not as they must be. */
  public record CrossSiteOutcome(int sent, List<String> wrong) {}

  /** A route's request: a JSON body on anything but a GET, as a program sends it, with the caller's credentials. */
  public HttpResponse<String> send(Route route, Caller caller, String body, Map<String, String> headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + route.path()))
        .timeout(Duration.ofSeconds(30));
    if (route.method().equals("GET")) {
      request.GET();
    } else {
      request.header("Content-Type", "application/json")
          .method(route.method(), HttpRequest.BodyPublishers.ofString(body));
    }
    headers.forEach(request::header);
    return exchange(request, caller);
  }

  /** A GET's status and body, as {@code "200 {...}"}. */
  public String get(String path, Caller caller) {
    HttpResponse<String> response = exchange(HttpRequest.newBuilder(URI.create(base + path)).GET(), caller);
    return response.statusCode() + " " + response.body();
  }

  private HttpResponse<String> exchange(HttpRequest.Builder request, Caller caller) {
    if (!caller.anonymous()) {
      request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
          (caller.user() + ":" + caller.password()).getBytes(StandardCharsets.UTF_8)));
    }
    try {
      return http.send(request.build(), RouteRequests::bodyOrStreamStart);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The body as text; of an event stream (the UI's {@code /ui/live}, which stays open) none: the status and headers
   * are what the checks read, and the connection is closed at once.
   */
  private static HttpResponse.BodySubscriber<String> bodyOrStreamStart(HttpResponse.ResponseInfo info) {
    if (!info.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      return HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8);
    }
    return new HttpResponse.BodySubscriber<>() {
      @Override
      public java.util.concurrent.CompletionStage<String> getBody() {
        return java.util.concurrent.CompletableFuture.completedFuture("");
      }

      @Override
      public void onSubscribe(java.util.concurrent.Flow.Subscription subscription) {
        subscription.cancel();
      }

      @Override
      public void onNext(List<java.nio.ByteBuffer> item) {}

      @Override
      public void onError(Throwable throwable) {}

      @Override
      public void onComplete() {}
    };
  }
}
