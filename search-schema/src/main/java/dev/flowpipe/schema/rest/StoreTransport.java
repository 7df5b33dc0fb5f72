package dev.flowpipe.schema.rest;

/**
 * Carries one request to the store and brings back its answer, whatever its status. The one seam between the store
 * adapter and the network: what to connect to, TLS, authentication and timeouts live behind it, and a test can put a
 * fake of its own in front of the adapter.
 */
public interface StoreTransport extends AutoCloseable {

  /**
   * Sends the request and waits for the answer.
   *
   * @throws dev.flowpipe.schema.store.StoreUnavailableException when no answer came (refused connection, timeout,
   *     failed TLS handshake), naming the store's URL
   */
  StoreAnswer send(StoreRequest request);

  @Override
  void close();
}
