package dev.flowpipe.schema;

import dev.flowpipe.testsupport.ScratchDirectories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway certificate authority and a server certificate it signed for {@code localhost} only (so a URL naming
 * {@code 127.0.0.1} is a host-name mismatch), made once per test JVM with the JDK's {@code keytool}.
 *
 * @param caTrustStore PKCS12 trust store holding the CA, password {@link #TRUST_STORE_PASSWORD}
 * @param caPem the CA certificate as PEM
 * @param serverKeyStore PKCS12 key store with the server's key and chain, password {@link #SERVER_PASSWORD}
 */
public record TestCertificates(Path caTrustStore, Path caPem, Path serverKeyStore) {

  public static final String TRUST_STORE_PASSWORD = "trust-pass";
  public static final String SERVER_PASSWORD = "server-pass";
  private static TestCertificates made;

  /** The certificates of this JVM, made on first use (a few seconds of keytool). */
  public static synchronized TestCertificates get() {
    if (made == null) {
      try {
        made = make(ScratchDirectories.create("flowpipe-tls"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return made;
  }

  private static TestCertificates make(Path dir) {
    String ca = dir.resolve("ca.p12").toString();
    String caPem = dir.resolve("ca.pem").toString();
    String trust = dir.resolve("truststore.p12").toString();
    String server = dir.resolve("server.p12").toString();
    String request = dir.resolve("server.csr").toString();
    String signed = dir.resolve("server.pem").toString();
    String caPass = "ca-pass";
    keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=flowpipe test CA",
        "-ext", "bc:c", "-validity", "2", "-keystore", ca, "-storetype", "PKCS12", "-storepass", caPass);
    keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca, "-storepass", caPass, "-file", caPem);
    keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caPem, "-keystore", trust, "-storetype", "PKCS12",
        "-storepass", TRUST_STORE_PASSWORD);
    keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
        "-validity", "2", "-keystore", server, "-storetype", "PKCS12", "-storepass", SERVER_PASSWORD);
    keytool("-certreq", "-alias", "server", "-keystore", server, "-storepass", SERVER_PASSWORD, "-file", request);
    keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", ca, "-storepass", caPass, "-infile", request, "-outfile",
        signed, "-ext", "san=dns:localhost", "-validity", "2");
    keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caPem, "-keystore", server, "-storepass",
        SERVER_PASSWORD);
    keytool("-importcert", "-alias", "server", "-file", signed, "-keystore", server, "-storepass", SERVER_PASSWORD);
    return new TestCertificates(Path.of(trust), Path.of(caPem), Path.of(server));
  }

  private static void keytool(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes());
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + output);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
