package dev.flowpipe.exporter.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.exporter.handler.DocumentChange;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class DocumentBufferTest {

  private final RecentDocuments recent = new RecentDocuments(10);
  private final DocumentBuffer buffer = new DocumentBuffer(recent);

  private static DocumentChange create(long position, String state) {
    return DocumentChange.create("i", 1, position, doc -> doc.put("state", state));
  }

  private static DocumentChange update(long position, String field, Object value) {
    return DocumentChange.update("i", 1, position, doc -> doc.put(field, value));
  }

  @Test
  void foldsTheRecordsOfOneDocumentIntoOne() {
    buffer.add(List.of(create(1, "ACTIVE")), 1, 0, 0);
    buffer.add(List.of(update(2, "state", "COMPLETED")), 2, 0, 0);

    assertThat(buffer.size()).isEqualTo(1);
    PendingDocument document = buffer.documents().iterator().next();
    assertThat(document.state()).isEqualTo(Map.of("state", "COMPLETED"));
    assertThat(document.position()).isEqualTo(2);
    assertThat(buffer.lastPosition()).isEqualTo(2);
  }

  @Nested
  class WithoutItsFirstRecord {

    @Test
    void waitsForTheStoredDocumentAndAppliesOnlyTheChangesItDoesNotReflect() {
      buffer.add(List.of(update(5, "a", "old")), 5, 0, 0);
      buffer.add(List.of(update(9, "state", "COMPLETED")), 9, 0, 0);
      PendingDocument document = buffer.withoutBase().getFirst();

      buffer.resolve(document, Map.of("state", "ACTIVE", "a", "stored", "position", 7));

      assertThat(document.state()).containsEntry("a", "stored").containsEntry("state", "COMPLETED");
      assertThat(document.position()).isEqualTo(9);
    }

    @Test
    void startsEmptyWhenTheStoreHasNothing() {
      buffer.add(List.of(update(5, "a", "x")), 5, 0, 0);

      buffer.resolve(buffer.withoutBase().getFirst(), null);

      assertThat(buffer.documents().iterator().next().state()).isEqualTo(Map.of("a", "x"));
    }

    @Test
    void foldsOntoWhatWasWrittenLastWithoutReadingTheStore() {
      buffer.add(List.of(create(1, "ACTIVE")), 1, 0, 0);
      PendingDocument written = buffer.documents().iterator().next();
      buffer.done(written, true);

      buffer.add(List.of(update(4, "state", "COMPLETED")), 4, 0, 0);

      assertThat(buffer.withoutBase()).isEmpty();
      assertThat(buffer.documents().iterator().next().state()).isEqualTo(Map.of("state", "COMPLETED"));
    }
  }

  /** While one batch is being written on the bulk thread, the buffer fills the next one. */
  @Nested
  class WhileABatchIsInFlight {

    @Test
    void aDocumentChangedAgainStartsFromTheVersionTheBatchWrote() {
      recent.put("i/1", Map.of("state", "STALE"), 0);
      buffer.add(List.of(create(1, "ACTIVE")), 1, 0, 0);
      DocumentBuffer batch = buffer.takeBatch();
      buffer.add(List.of(update(2, "state", "COMPLETED")), 2, 0, 0, batch);
      assertThat(buffer.withoutBase()).as("the cache does not know the version in flight").hasSize(1);

      batch.done(batch.documents().iterator().next(), true);
      buffer.settle(batch);

      assertThat(batch.isEmpty()).isTrue();
      assertThat(buffer.withoutBase()).isEmpty();
      PendingDocument next = buffer.documents().iterator().next();
      assertThat(next.state()).isEqualTo(Map.of("state", "COMPLETED"));
      assertThat(next.position()).isEqualTo(2);
    }

    @Test
    void aDocumentChangedAfterItsBulkWroteItButBeforeTheBatchIsSettledStillWaitsForTheBatch() {
      // the bulk thread is done with the document (the store has it) but the export thread has not settled the batch:
      // the cache still holds the version before the batch, so starting from it would undo what the batch wrote
      recent.put("i/1", Map.of("state", "ACTIVE", "incidentKey", 9), 1);
      buffer.add(List.of(update(2, "incidentKey", null)), 2, 0, 0);
      DocumentBuffer batch = buffer.takeBatch();
      batch.done(batch.documents().iterator().next(), true);

      buffer.add(List.of(update(3, "state", "COMPLETED")), 3, 0, 0, batch);
      buffer.settle(batch);

      PendingDocument next = buffer.documents().iterator().next();
      Map<String, Object> expected = new java.util.HashMap<>();
      expected.put("state", "COMPLETED");
      expected.put("incidentKey", null);
      assertThat(next.state()).isEqualTo(expected);
      assertThat(next.position()).isEqualTo(3);
    }

    @Test
    void aBatchThatFailedComesBackFoldedWithTheLaterChangesOfItsDocuments() {
      buffer.add(List.of(create(1, "ACTIVE")), 1, 0, 0);
      buffer.add(List.of(update(2, "a", "x")), 2, 0, 0);
      DocumentBuffer batch = buffer.takeBatch();
      assertThat(buffer.isEmpty()).isTrue();
      buffer.add(List.of(update(3, "state", "COMPLETED")), 3, 0, 0, batch);

      buffer.settle(batch); // nothing was written

      assertThat(buffer.size()).isEqualTo(1);
      PendingDocument merged = buffer.documents().iterator().next();
      assertThat(merged.state()).isEqualTo(Map.of("state", "COMPLETED", "a", "x"));
      assertThat(merged.position()).isEqualTo(3);
      assertThat(buffer.recordsSinceAck()).as("the batch's records wait for acknowledgement again").isEqualTo(3);
      assertThat(buffer.lastPosition()).isEqualTo(3);
    }

    @Test
    void aDocumentTheBatchDidNotWriteIsReadFromTheStoreAgain() {
      buffer.add(List.of(create(1, "ACTIVE")), 1, 0, 0);
      DocumentBuffer batch = buffer.takeBatch();
      buffer.add(List.of(update(5, "state", "COMPLETED")), 5, 0, 0, batch);

      batch.done(batch.documents().iterator().next(), false); // superseded: the store holds something newer
      buffer.settle(batch);

      assertThat(buffer.withoutBase()).hasSize(1);
    }
  }

  @Test
  void aRecordWithoutChangesStillMovesThePositionToAcknowledge() {
    buffer.add(List.of(), 17, 0, 0);

    assertThat(buffer.isEmpty()).isTrue();
    assertThat(buffer.lastPosition()).isEqualTo(17);
  }
}
