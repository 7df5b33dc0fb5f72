package dev.flowpipe.webapp.alert;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The JDK's HTTP client, asynchronous, with one time budget per request (connection included). */
public final class HttpWebhookSender implements WebhookSender {

  private final HttpClient client;
  private final Duration timeout;

  public HttpWebhookSender(Duration timeout) {
    this.client = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    this.timeout = timeout;
  }

  @Override
  public CompletableFuture<Integer> post(URI url, Map<String, String> headers, byte[] body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(timeout)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(request::header);
    return client.sendAsync(request.build(), HttpResponse.BodyHandlers.discarding()).thenApply(HttpResponse::statusCode);
  }
}
