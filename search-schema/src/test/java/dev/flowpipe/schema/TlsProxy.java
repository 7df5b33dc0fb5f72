package dev.flowpipe.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;

/**
 * Terminates TLS on loopback in front of a plain store: what an https store looks like to a client. Each accepted
 * connection is piped, bytes unchanged, to the store's port. Presents {@link TestCertificates#serverKeyStore()}.
 */
public final class TlsProxy implements AutoCloseable {

  private final SSLServerSocket server;
  private final InetSocketAddress target;

  public TlsProxy(String targetUrl) {
    URI url = URI.create(targetUrl);
    target = new InetSocketAddress(url.getHost(), url.getPort());
    try {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(TestCertificates.get().serverKeyStore())) {
        keys.load(in, TestCertificates.SERVER_PASSWORD.toCharArray());
      }
      KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(keys, TestCertificates.SERVER_PASSWORD.toCharArray());
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(factory.getKeyManagers(), null, null);
      server = (SSLServerSocket) context.getServerSocketFactory()
          .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
    Thread.ofVirtual().name("tls-proxy-accept").start(this::accept);
  }

  /** {@code https://<host>:<port>} of the proxy; {@code localhost} matches its certificate, {@code 127.0.0.1} not. */
  public String url(String host) {
    return "https://" + host + ":" + server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Thread.ofVirtual().start(() -> connect(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void connect(Socket client) {
    try (client; Socket store = new Socket()) {
      store.connect(target, 5_000);
      Thread toStore = Thread.ofVirtual().start(() -> pipe(client, store));
      pipe(store, client);
      toStore.join();
    } catch (IOException | InterruptedException e) {
      // a handshake the client refused, or a connection either side dropped: nothing to forward
    }
  }

  private static void pipe(Socket from, Socket to) {
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      in.transferTo(out);
    } catch (IOException e) {
      // the other direction closes both
    } finally {
      try {
        from.close();
        to.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException ignored) {
      // closing
    }
  }
}
