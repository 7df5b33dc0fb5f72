package dev.flowpipe.importer;

import dev.flowpipe.importer.config.ImporterArguments;
import dev.flowpipe.importer.config.ImporterSettings;
import dev.flowpipe.schema.store.SearchStoreConnector;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The importer on its own, against an external store (started by {@code bin/flowpipe-importer}; arguments in
 * {@link ImporterArguments}). Runs until stopped, logging when it has caught up, or with {@code --until-caught-up}
 * exits 0 once it has. A bad configuration exits 2 with a message naming the key, before anything is connected.
 */
public final class ImporterMain {

  private static final Logger LOG = LoggerFactory.getLogger(ImporterMain.class);
  private static final long CHECK_MILLIS = 100;

  private ImporterMain() {}

  public static void main(String[] args) throws InterruptedException {
    ImporterSettings settings;
    ImporterArguments arguments;
    try {
      arguments = ImporterArguments.parse(List.of(args), System.getProperties());
      if (arguments.help()) {
        System.out.println(ImporterArguments.USAGE);
        return;
      }
      settings = ImporterSettings.fromProperties(arguments.properties(), null);
    } catch (IllegalArgumentException e) {
      System.err.println("bad importer configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    // the process's one clock, created here at its entry: the importer and the caught-up report read it
    InstantSource clock = InstantSource.system();
    Instant started = clock.instant();
    Importer importer = Importer.start(settings, SearchStoreConnector::connect, clock, registry);
    AtomicBoolean closed = new AtomicBoolean();
    Pause.Wakeable check = Pause.wakeable();
    Runnable close = () -> {
      if (closed.compareAndSet(false, true)) {
        check.wakeAll();
        importer.close();
      }
    };
    Runtime.getRuntime().addShutdownHook(new Thread(close, "importer-shutdown"));
    boolean reported = false;
    while (!closed.get()) {
      boolean caughtUp = importer.caughtUp();
      if (caughtUp != reported) {
        reported = caughtUp;
        if (caughtUp) {
          LOG.info("caught up: every searchable raw record is imported ({} records in {} s; partitions {})",
              (long) registry.find("flowpipe.importer.records").counters().stream().mapToDouble(Counter::count).sum(),
              String.format("%.1f", Duration.between(started, clock.instant()).toMillis() / 1e3), importer.partitions().keySet());
        } else {
          LOG.info("importing");
        }
      }
      if (caughtUp && arguments.untilCaughtUp()) {
        close.run();
        return;
      }
      check.pause(CHECK_MILLIS);
    }
  }
}
