package dev.flowpipe.benchmarks.harness;

import dev.flowpipe.exporter.ReadModelExporter;
import dev.flowpipe.systemtests.CleanPass;
import io.camunda.zeebe.exporter.api.context.Controller;
import io.camunda.zeebe.exporter.api.context.ScheduledTask;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.protocol.record.Record;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Our exporter hosted as the broker hosts it: configure, open, every {@code export()} and every scheduled task on one
 * actor thread, each scheduled task when it is due. (The exporter API's test controller runs scheduled tasks only when
 * a test calls it, measuring their delays from its first run and keeping every task it was ever given, so it cannot
 * be the clock of a run that lasts a minute.) Positions go through that test controller; each acknowledgement is also
 * told, as it happens and with its time, to a listener.
 */
public final class ExporterOnActor implements AutoCloseable {

  /** Told of every acknowledgement, on whichever thread the exporter acknowledges from. */
  public interface AcknowledgementListener {
    void acknowledged(long position, long nanoTime);
  }

  private final ScheduledExecutorService actor = Executors.newSingleThreadScheduledExecutor(
      task -> Thread.ofPlatform().daemon().name("exporter-actor").unstarted(task));
  private final ExporterTestController positions = new ExporterTestController();
  private final ExporterTestContext context = new ExporterTestContext();
  private final ReadModelExporter exporter = new ReadModelExporter();
  private final AcknowledgementListener listener;
  private volatile Throwable failure;

  /** Configures and opens the exporter with these exporter arguments (the keys of ExporterConfiguration). */
  public ExporterOnActor(Map<String, Object> arguments, AcknowledgementListener listener) throws Exception {
    this.listener = listener;
    onActor(() -> {
      exporter.configure(context.setConfiguration(new ExporterTestConfiguration<>("slow-link", arguments, a -> a)));
      exporter.open(new ActorController());
    });
  }

  /** Hands the exporter one record, again while it refuses it (as the broker does); only from the actor. */
  public void export(Record<?> record) {
    CleanPass.offerUntilTaken(exporter, record);
  }

  /** Runs {@code task} on the actor after what is due before it; a failure ends the run at the next await. */
  public void execute(Runnable task) {
    actor.execute(guarded(task));
  }

  /** Runs {@code task} on the actor every {@code period}, catching up when late (an open-loop pace). */
  public ScheduledFuture<?> atFixedRate(Runnable task, Duration period) {
    return actor.scheduleAtFixedRate(guarded(task), 0, period.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Waits until every record up to {@code position} is acknowledged. */
  public void awaitAcknowledged(long position, Duration timeout) throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (positions.getPosition() < position) {
      if (failure != null) {
        throw new IllegalStateException("the exporter failed on the actor", failure);
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("acknowledged " + positions.getPosition() + " of " + position + " in " + timeout);
      }
      Thread.sleep(2);
    }
  }

  /** The exporter's meters (bulk sizes, flush durations). */
  public MeterRegistry meters() {
    return context.getMeterRegistry();
  }

  private Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        if (failure == null) {
          failure = e;
        }
        throw e;
      }
    };
  }

  private void onActor(Runnable task) throws Exception {
    try {
      actor.submit(task).get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  /** Closes the exporter on the actor (it flushes what is buffered) and stops the actor. */
  @Override
  public void close() throws Exception {
    try {
      onActor(exporter::close);
    } finally {
      actor.shutdownNow();
    }
  }

  /** The broker's side of the exporter API: positions kept by the test controller, tasks run on the actor. */
  private final class ActorController implements Controller {

    @Override
    public void updateLastExportedRecordPosition(long position) {
      long now = System.nanoTime();
      // the listener first: whoever sees the position sees what the listener made of it
      listener.acknowledged(position, now);
      positions.updateLastExportedRecordPosition(position);
    }

    @Override
    public void updateLastExportedRecordPosition(long position, byte[] metadata) {
      long now = System.nanoTime();
      listener.acknowledged(position, now);
      positions.updateLastExportedRecordPosition(position, metadata);
    }

    @Override
    public long getLastExportedRecordPosition() {
      return positions.getLastExportedRecordPosition();
    }

    @Override
    public ScheduledTask scheduleCancellableTask(Duration delay, Runnable task) {
      ScheduledFuture<?> scheduled = actor.schedule(guarded(task), delay.toNanos(), TimeUnit.NANOSECONDS);
      return () -> scheduled.cancel(false);
    }

    @Override
    public Optional<byte[]> readMetadata() {
      return positions.readMetadata();
    }
  }
}
