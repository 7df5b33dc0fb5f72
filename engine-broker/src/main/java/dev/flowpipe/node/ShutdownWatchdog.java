package dev.flowpipe.node;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Makes a stop signal stop the node within {@code flowpipe.shutdown-timeout} in every phase: waiting for peers,
 * starting the embedded store, migrating the schema, serving, stopping.
 *
 * <p>Spring's own shutdown hook cannot: closing a context waits for its start-up to end, and a broker waiting for
 * peers that never come does not end it (seen: still running 91 s after SIGTERM). So this hook takes its place. During
 * start-up it interrupts the starting thread, which cancels the waits that listen (the broker's start, the store's
 * boot); the start fails and Spring closes what it had started, the embedded store among it. Serving, it closes the
 * context as Spring's hook would. Whatever has not ended when the time is almost up is cut short: the node's child
 * processes (the embedded store) are killed first, then the JVM halts with exit code 1.
 */
final class ShutdownWatchdog {

  static final String TIMEOUT_KEY = "flowpipe.shutdown-timeout";
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

  private static final Logger LOG = LoggerFactory.getLogger(ShutdownWatchdog.class);

  private final Thread startThread;
  private final Clock clock;
  private volatile ConfigurableApplicationContext context;
  private volatile Duration timeout = DEFAULT_TIMEOUT;
  private volatile boolean starting = true;
  private volatile boolean stopRequested;

  private ShutdownWatchdog(Thread startThread, Clock clock) {
    this.startThread = startThread;
    this.clock = clock;
  }

  /** Takes over the stop signal of {@code application}, which {@code startThread} runs; {@code clock} sets deadlines. */
  static ShutdownWatchdog install(SpringApplication application, Thread startThread, Clock clock) {
    ShutdownWatchdog watchdog = new ShutdownWatchdog(startThread, clock);
    application.setRegisterShutdownHook(false);
    application.addInitializers(context -> watchdog.context = context);
    application.addListeners((ApplicationListener<ApplicationEnvironmentPreparedEvent>) event ->
        watchdog.timeout = Binder.get(event.getEnvironment()).bind(TIMEOUT_KEY, Duration.class)
            .orElse(DEFAULT_TIMEOUT));
    Runtime.getRuntime().addShutdownHook(new Thread(watchdog::stop, "flowpipe-stop"));
    return watchdog;
  }

  /** The start-up has ended, started or failed. */
  void startEnded() {
    starting = false;
  }

  /** Whether a stop signal came: a start-up that failed then was cancelled, not broken. */
  boolean stopRequested() {
    return stopRequested;
  }

  private void stop() {
    stopRequested = true;
    Duration limit = timeout;
    long deadline = clock.millis() + limit.toMillis();
    // killing the children and halting takes well under a second on an idle machine, but 1.3 s was seen from the cut
    // to the exit at a load of 60 on two cores: keep a tenth (2 to 5 s) for it, at most half of a short timeout
    long margin = Math.min(limit.toMillis() / 2, Math.clamp(limit.toMillis() / 10, 2_000, 5_000));
    boolean wasStarting = starting;
    LOG.info("stop signal {}: the node stops within {} ({})", wasStarting ? "during start-up" : "", limit, TIMEOUT_KEY);
    if (wasStarting) {
      startThread.interrupt();
    }
    Thread closer = Thread.ofPlatform().name("flowpipe-stop-context").daemon().start(() -> {
      try {
        if (wasStarting) {
          startThread.join(); // a failed start closes its context itself; one that got through is closed below
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      ConfigurableApplicationContext started = context;
      if (started != null) {
        started.close();
      }
    });
    try {
      closer.join(Duration.ofMillis(Math.max(0, deadline - margin - clock.millis())));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!closer.isAlive()) {
      return;
    }
    List<ProcessHandle> children = ProcessHandle.current().descendants().toList();
    LOG.error("the node did not stop within {} ({}); killing its {} child process(es) (the embedded store) and halting",
        limit, TIMEOUT_KEY, children.size());
    children.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle child : children) {
      try {
        child.onExit().get(Math.max(0, deadline - clock.millis()), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        break; // out of time: halt anyway
      }
    }
    Runtime.getRuntime().halt(1);
  }
}
