package dev.flowpipe.schema.store;

import dev.flowpipe.settings.Secrets;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * Which certificates an {@code https} store connection trusts. Without a trust store or CA file the JDK's own trusted
 * authorities apply. Validated on construction, so a missing file or a wrong password stops start-up naming the key
 * and the path rather than failing at the first request.
 *
 * @param keyPrefix the configuration keys these settings came from, e.g. {@code flowpipe.store.tls.}; named in errors
 * @param trustStore a PKCS12 or JKS file with the certificate authorities to trust, or null
 * @param trustStorePassword the trust store's password, or null; never printed
 * @param trustStoreType {@code PKCS12} (default) or {@code JKS}
 * @param caCertificate a PEM file with one or more CA certificates to trust, or null
 * @param verifyHostname check that the store's certificate names the host of the URL; turning it off is unsafe (anyone
 *     holding a certificate from a trusted authority can pose as the store)
 */
public record StoreTls(
    String keyPrefix,
    Path trustStore,
    String trustStorePassword,
    String trustStoreType,
    Path caCertificate,
    boolean verifyHostname) {

  public static final String TRUST_STORE = "trust-store";
  public static final String TRUST_STORE_PASSWORD = "trust-store-password";
  public static final String TRUST_STORE_TYPE = "trust-store-type";
  public static final String CA_CERTIFICATE = "ca-certificate";
  public static final String VERIFY_HOSTNAME = "verify-hostname";
  /** The keys after the prefix, for callers that refuse unknown keys. */
  public static final List<String> KEYS =
      List.of(TRUST_STORE, TRUST_STORE_PASSWORD, TRUST_STORE_TYPE, CA_CERTIFICATE, VERIFY_HOSTNAME);

  private static final Set<String> TYPES = Set.of("PKCS12", "JKS");

  /** The JDK's trusted authorities, host names verified. */
  public static final StoreTls DEFAULT = new StoreTls("tls.", null, null, null, null, true);

  public StoreTls {
    keyPrefix = keyPrefix == null ? "" : keyPrefix;
    trustStoreType = trustStoreType == null || trustStoreType.isBlank()
        ? "PKCS12"
        : trustStoreType.trim().toUpperCase(Locale.ROOT);
    if (!TYPES.contains(trustStoreType)) {
      throw new IllegalArgumentException(keyPrefix + TRUST_STORE_TYPE + " must be PKCS12 or JKS, was '" + trustStoreType
          + "'");
    }
    if (trustStore != null) {
      loadTrustStore(keyPrefix, trustStore, trustStorePassword, trustStoreType);
    } else if (trustStorePassword != null) {
      throw new IllegalArgumentException(keyPrefix + TRUST_STORE_PASSWORD + " is set but " + keyPrefix + TRUST_STORE
          + " is not");
    }
    if (caCertificate != null) {
      readPem(keyPrefix, caCertificate);
    }
  }

  /**
   * Reads the settings from flat keys ({@code prefix + "trust-store"}, ...), as the exporter's arguments and the
   * importer's properties give them; absent keys take their defaults.
   */
  public static StoreTls fromKeys(String prefix, Map<String, ?> values) {
    return new StoreTls(
        prefix,
        path(values.get(prefix + TRUST_STORE)),
        text(values.get(prefix + TRUST_STORE_PASSWORD)),
        text(values.get(prefix + TRUST_STORE_TYPE)),
        path(values.get(prefix + CA_CERTIFICATE)),
        bool(prefix + VERIFY_HOSTNAME, values.get(prefix + VERIFY_HOSTNAME)));
  }

  /** The same settings as flat keys under {@code prefix}, the form {@link #fromKeys} reads; unset ones left out. */
  public Map<String, Object> toKeys(String prefix) {
    Map<String, Object> keys = new LinkedHashMap<>();
    if (trustStore != null) {
      keys.put(prefix + TRUST_STORE, trustStore.toString());
      keys.put(prefix + TRUST_STORE_TYPE, trustStoreType);
    }
    if (trustStorePassword != null) {
      keys.put(prefix + TRUST_STORE_PASSWORD, trustStorePassword);
    }
    if (caCertificate != null) {
      keys.put(prefix + CA_CERTIFICATE, caCertificate.toString());
    }
    if (!verifyHostname) {
      keys.put(prefix + VERIFY_HOSTNAME, false);
    }
    return keys;
  }

  /** Whether anything differs from the JDK's own trust and host-name verification. */
  public boolean isCustom() {
    return trustStore != null || caCertificate != null || !verifyHostname;
  }

  /** What to tell a user whose store's certificate was refused. */
  public String trustHint() {
    return "set " + keyPrefix + TRUST_STORE + " or " + keyPrefix + CA_CERTIFICATE
        + " to the authority that signed the store's certificate";
  }

  /** A TLS context trusting the configured authorities (or the JDK's), checking host names unless turned off. */
  public SSLContext sslContext() {
    try {
      TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(trustStore == null && caCertificate == null ? null : trustedAuthorities());
      List<TrustManager> managers = new ArrayList<>();
      for (TrustManager manager : factory.getTrustManagers()) {
        managers.add(!verifyHostname && manager instanceof X509TrustManager x509
            ? new ChainOnlyTrustManager(x509)
            : manager);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, managers.toArray(TrustManager[]::new), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(keyPrefix + ": cannot build a TLS context: " + e.getMessage(), e);
    }
  }

  private KeyStore trustedAuthorities() throws GeneralSecurityException {
    KeyStore store = trustStore != null
        ? loadTrustStore(keyPrefix, trustStore, trustStorePassword, trustStoreType)
        : emptyStore();
    if (caCertificate != null) {
      int i = 0;
      for (Certificate certificate : readPem(keyPrefix, caCertificate)) {
        store.setCertificateEntry("pem-ca-" + i++, certificate);
      }
    }
    return store;
  }

  private static KeyStore emptyStore() throws GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try {
      store.load(null, null);
    } catch (IOException e) {
      throw new GeneralSecurityException(e);
    }
    return store;
  }

  private static KeyStore loadTrustStore(String keyPrefix, Path file, String password, String type) {
    String key = keyPrefix + TRUST_STORE;
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new IllegalArgumentException(key + ": no readable file at " + file.toAbsolutePath());
    }
    try (InputStream in = Files.newInputStream(file)) {
      KeyStore store = KeyStore.getInstance(type);
      store.load(in, password == null ? null : password.toCharArray());
      if (store.size() == 0) {
        throw new IllegalArgumentException(key + ": the trust store at " + file.toAbsolutePath() + " holds no"
            + " certificate (or " + keyPrefix + TRUST_STORE_PASSWORD + " is missing)");
      }
      return store;
    } catch (IOException e) {
      if (e.getCause() instanceof UnrecoverableKeyException) {
        throw new IllegalArgumentException(keyPrefix + TRUST_STORE_PASSWORD + " is wrong for the trust store at "
            + file.toAbsolutePath(), e);
      }
      throw new IllegalArgumentException(key + ": cannot read " + file.toAbsolutePath() + " as " + type + " (set "
          + keyPrefix + TRUST_STORE_TYPE + "?): " + e.getMessage(), e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(key + ": cannot read " + file.toAbsolutePath() + ": " + e.getMessage(), e);
    }
  }

  private static Collection<? extends Certificate> readPem(String keyPrefix, Path file) {
    String key = keyPrefix + CA_CERTIFICATE;
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new IllegalArgumentException(key + ": no readable file at " + file.toAbsolutePath());
    }
    try (InputStream in = Files.newInputStream(file)) {
      Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certificates.isEmpty()) {
        throw new IllegalArgumentException(key + ": no certificate in " + file.toAbsolutePath());
      }
      return certificates;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(key + ": " + file.toAbsolutePath() + " is not a PEM certificate file: "
          + e.getMessage(), e);
    }
  }

  private static Path path(Object value) {
    return value == null || value.toString().isBlank() ? null : Path.of(value.toString().trim());
  }

  private static String text(Object value) {
    return value == null ? null : value.toString();
  }

  private static boolean bool(String key, Object value) {
    if (value == null) {
      return true;
    }
    if (value instanceof Boolean bool) {
      return bool;
    }
    return switch (value.toString().trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(key + " must be true or false, was '" + value + "'");
    };
  }

  @Override
  public String toString() {
    return "StoreTls[trustStore=" + trustStore + ", trustStorePassword=" + Secrets.mask(trustStorePassword)
        + ", trustStoreType=" + trustStoreType + ", caCertificate=" + caCertificate + ", verifyHostname="
        + verifyHostname + "]";
  }
}
