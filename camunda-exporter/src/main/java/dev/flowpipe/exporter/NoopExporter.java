package dev.flowpipe.exporter;

import io.camunda.zeebe.exporter.api.Exporter;
import io.camunda.zeebe.exporter.api.context.Controller;
import io.camunda.zeebe.protocol.record.Record;

/**
 * An exporter that writes nothing and acknowledges every record at once: the baseline against which the benchmarks
 * measure what our exporter costs the engine (install it with {@code flowpipe.broker.additional-exporters}).
 */
public final class NoopExporter implements Exporter {

  private Controller controller;

  @Override
  public void open(Controller controller) {
    this.controller = controller;
  }

  @Override
  public void export(Record<?> record) {
    controller.updateLastExportedRecordPosition(record.getPosition());
  }
}
