package dev.flowpipe.importer;

import dev.flowpipe.importer.config.ImporterSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The importer on its own, against an external store: {@code --flowpipe.importer.<key>=<value>} arguments (or the same
 * keys as system properties), {@code source-url} required. Runs until stopped; logs when it has caught up.
 */
public final class ImporterMain {

  private static final Logger LOG = LoggerFactory.getLogger(ImporterMain.class);

  private ImporterMain() {}

  public static void main(String[] args) throws InterruptedException {
    ImporterSettings settings;
    try {
      settings = ImporterSettings.fromProperties(properties(args), null);
    } catch (IllegalArgumentException e) {
      System.err.println("bad importer configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    Importer importer = Importer.start(settings, new SimpleMeterRegistry());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      importer.close();
      stopped.countDown();
    }));
    boolean reported = false;
    while (stopped.getCount() > 0) {
      boolean caughtUp = importer.caughtUp();
      if (caughtUp != reported) {
        LOG.info(caughtUp ? "caught up: every searchable raw record is imported" : "importing");
        reported = caughtUp;
      }
      Thread.sleep(200);
    }
  }

  private static Map<String, Object> properties(String[] args) {
    Map<String, Object> properties = new LinkedHashMap<>();
    System.getProperties().forEach((key, value) -> {
      if (key.toString().startsWith(ImporterSettings.PREFIX)) {
        properties.put(key.toString(), value);
      }
    });
    for (String arg : args) {
      if (!arg.startsWith("--") || !arg.contains("=")) {
        throw new IllegalArgumentException("arguments look like --flowpipe.importer.source-url=http://..., was " + arg);
      }
      String key = arg.substring(2, arg.indexOf('='));
      if (!key.startsWith(ImporterSettings.PREFIX)) {
        throw new IllegalArgumentException("unknown argument " + key + " (importer keys start with "
            + ImporterSettings.PREFIX + ")");
      }
      properties.put(key, arg.substring(arg.indexOf('=') + 1));
    }
    return properties;
  }
}
