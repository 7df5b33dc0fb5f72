package dev.flowpipe.webapp.alert;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Sends one POST without blocking the caller: the seam between the dispatcher and the network. */
public interface WebhookSender {

  /**
   * POSTs a JSON body with these headers; completes with the HTTP status, or exceptionally when there was no answer
   * (refused, timed out).
   */
  CompletableFuture<Integer> post(URI url, Map<String, String> headers, byte[] body);
}
