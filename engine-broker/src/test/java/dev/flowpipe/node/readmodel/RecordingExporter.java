package dev.flowpipe.node.readmodel;

import io.camunda.zeebe.exporter.api.Exporter;
import io.camunda.zeebe.exporter.api.context.Controller;
import io.camunda.zeebe.protocol.record.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/** Keeps a copy of every record the broker exports, so tests can replay the real stream into our exporter. */
public final class RecordingExporter implements Exporter {

  private static final ConcurrentLinkedQueue<Record<?>> RECORDS = new ConcurrentLinkedQueue<>();

  private Controller controller;

  public static List<Record<?>> records() {
    return new ArrayList<>(RECORDS);
  }

  @Override
  public void open(Controller controller) {
    this.controller = controller;
  }

  @Override
  public void export(Record<?> record) {
    RECORDS.add(record.copyOf());
    controller.updateLastExportedRecordPosition(record.getPosition());
  }
}
