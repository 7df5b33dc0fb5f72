package dev.flowpipe.writer.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.writer.handler.DocumentChange;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class DocumentBufferTest {

  private final RecentDocuments recent = new RecentDocuments(10);
  private final DocumentBuffer buffer = new DocumentBuffer(recent);

  private static DocumentChange create(long position, String state) {
    return DocumentChange.create("i", 1, position).put("state", state).build();
  }

  private static DocumentChange update(long position, String field, Object value) {
    return DocumentChange.update("i", 1, position).put(field, value).build();
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

  /** A change that gives the whole document (a variable record, an entity's first record). */
  @Nested
  class GivingTheWholeDocument {

    @Test
    void needsNoBaseEvenAfterChangesThatWaitedForOne() {
      buffer.add(List.of(update(5, "a", "old")), 5, 0, 0);
      buffer.add(List.of(create(6, "REPLACED")), 6, 0, 0);

      assertThat(buffer.withoutBase()).as("nothing to read from the store").isEmpty();
      assertThat(buffer.documents().iterator().next().state()).isEqualTo(Map.of("state", "REPLACED"));
    }

    @Test
    void replacesWhatWasWrittenLastWithoutReadingTheStore() {
      buffer.add(List.of(create(1, "FIRST"), update(1, "extra", "x")), 1, 0, 0);
      buffer.done(buffer.documents().iterator().next(), true);

      buffer.add(List.of(create(3, "SECOND")), 3, 0, 0);

      assertThat(buffer.documents().iterator().next().state()).isEqualTo(Map.of("state", "SECOND"));
    }

    @Test
    void changesNothingWhenTheBaseAlreadyReflectsALaterPosition() {
      buffer.add(List.of(update(9, "a", "x")), 9, 0, 0);
      PendingDocument document = buffer.withoutBase().getFirst();
      buffer.resolve(document, Map.of("state", "LATER", "position", 12));

      buffer.add(List.of(create(10, "REPLAYED")), 10, 0, 0);

      assertThat(document.state()).containsEntry("state", "LATER");
      assertThat(document.position()).isEqualTo(12);
    }
  }

  /** While batches are being written on bulk threads, the buffer fills the next one. */
  @Nested
  class WhileABatchIsInFlight {

    private record Batches(DocumentBuffer first, DocumentBuffer second) {
      List<DocumentBuffer> both() {
        return List.of(first, second);
      }
    }

    /** One document in two batches in flight: created in the first (position 1), changed in the second (2). */
    private Batches twoBatchesInFlight() {
      buffer.add(List.of(create(1, "ACTIVE")), 1, 0, 0);
      DocumentBuffer first = buffer.takeBatch();
      buffer.add(List.of(update(2, "a", "x")), 2, 0, 0, List.of(first));
      return new Batches(first, buffer.takeBatch());
    }

    private PendingDocument only(DocumentBuffer of) {
      assertThat(of.size()).isEqualTo(1);
      return of.documents().iterator().next();
    }

    @Test
    void aDocumentChangedAgainStartsAtOnceFromTheVersionInFlightNotFromTheCache() {
      recent.put("i/1", Map.of("state", "STALE"), 0);
      buffer.add(List.of(create(1, "ACTIVE")), 1, 0, 0);
      DocumentBuffer batch = buffer.takeBatch();

      buffer.add(List.of(update(2, "a", "x")), 2, 0, 0, List.of(batch));

      assertThat(buffer.withoutBase()).isEmpty();
      assertThat(buffer.waitsForInFlight()).as("it can be written while the batch is").isFalse();
      assertThat(only(buffer).state()).isEqualTo(Map.of("state", "ACTIVE", "a", "x"));
      assertThat(only(buffer).position()).isEqualTo(2);
    }

    @Test
    void aDocumentChangedAfterItsBulkWroteItButBeforeTheBatchIsSettledStartsFromWhatTheBulkWrote() {
      // the bulk thread is done with the document (the store has it) but the export thread has not settled the batch:
      // the cache still holds the version before the batch, so starting from it would undo what the batch wrote
      recent.put("i/1", Map.of("state", "ACTIVE", "incidentKey", 9), 1);
      buffer.add(List.of(update(2, "incidentKey", null)), 2, 0, 0);
      DocumentBuffer batch = buffer.takeBatch();
      batch.done(only(batch), true);

      buffer.add(List.of(update(3, "state", "COMPLETED")), 3, 0, 0, List.of(batch));
      buffer.settle(batch, true, List.of());

      Map<String, Object> expected = new java.util.HashMap<>();
      expected.put("state", "COMPLETED");
      expected.put("incidentKey", null);
      assertThat(only(buffer).state()).isEqualTo(expected);
      assertThat(only(buffer).position()).isEqualTo(3);
    }

    @Test
    void aDocumentWhoseBaseTheBatchStillReadsFromTheStoreWaitsForTheBatchAndSoDoesTheBuffer() {
      buffer.add(List.of(update(5, "a", "x")), 5, 0, 0);
      DocumentBuffer batch = buffer.takeBatch();
      buffer.add(List.of(update(9, "state", "COMPLETED")), 9, 0, 0, List.of(batch));

      assertThat(buffer.withoutBase()).hasSize(1);
      assertThat(buffer.waitsForInFlight()).isTrue();
      org.assertj.core.api.Assertions.assertThatThrownBy(buffer::takeBatch)
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("wait for a bulk in flight");

      batch.resolve(only(batch), Map.of("state", "ACTIVE", "b", "stored", "position", 3));
      batch.done(only(batch), true);
      buffer.settle(batch, true, List.of());

      assertThat(buffer.waitsForInFlight()).isFalse();
      assertThat(only(buffer).state())
          .containsEntry("state", "COMPLETED").containsEntry("a", "x").containsEntry("b", "stored");
      assertThat(only(buffer).position()).isEqualTo(9);
    }

    @Test
    void aBatchThatFailedComesBackFoldedWithTheLaterChangesOfItsDocuments() {
      buffer.add(List.of(create(1, "ACTIVE")), 1, 0, 0);
      buffer.add(List.of(update(2, "a", "x")), 2, 0, 0);
      DocumentBuffer batch = buffer.takeBatch();
      assertThat(buffer.isEmpty()).isTrue();
      buffer.add(List.of(update(3, "state", "COMPLETED")), 3, 0, 0, List.of(batch));

      buffer.settle(batch, false, List.of()); // nothing was written

      assertThat(only(buffer).state()).isEqualTo(Map.of("state", "COMPLETED", "a", "x"));
      assertThat(only(buffer).position()).isEqualTo(3);
      assertThat(buffer.recordsSinceAck()).as("the batch's records wait for acknowledgement again").isEqualTo(3);
      assertThat(buffer.lastPosition()).isEqualTo(3);
    }

    @Test
    void aVersionTheStoreAlreadyHadNewerStillBasesTheNextOneWhichFoldsFromTheEntitysFirstRecord() {
      // a replay: the store already holds a later version, so this bulk's write is refused as superseded; the next
      // version still folds every record since the entity's first, which a replay always sees again in order
      buffer.add(List.of(create(1, "ACTIVE")), 1, 0, 0);
      DocumentBuffer batch = buffer.takeBatch();
      buffer.add(List.of(update(5, "state", "COMPLETED")), 5, 0, 0, List.of(batch));

      batch.done(only(batch), false);
      buffer.settle(batch, true, List.of());

      assertThat(buffer.withoutBase()).isEmpty();
      assertThat(only(buffer).state()).isEqualTo(Map.of("state", "COMPLETED"));
    }

    @Test
    void withTwoBatchesInFlightAChangeStartsFromTheLatestVersion() {
      Batches batches = twoBatchesInFlight();

      buffer.add(List.of(update(3, "state", "COMPLETED")), 3, 0, 0, batches.both());

      assertThat(only(buffer).state()).isEqualTo(Map.of("state", "COMPLETED", "a", "x"));
    }

    @Test
    void aFailedBatchsDocumentThatALaterBatchInFlightRewritesIsNotWrittenAgainButItsRecordsWait() {
      Batches batches = twoBatchesInFlight();

      buffer.settle(batches.first(), false, List.of(batches.second())); // the first bulk failed

      assertThat(buffer.isEmpty()).as("the second bulk writes a version that includes the first's").isTrue();
      assertThat(buffer.recordsSinceAck()).isEqualTo(1);

      batches.second().done(only(batches.second()), true);
      buffer.settle(batches.second(), false, List.of()); // durable, but not acknowledged: the first was not

      assertThat(buffer.isEmpty()).isTrue();
      assertThat(buffer.recordsSinceAck()).as("both batches' records, for the next acknowledgement").isEqualTo(2);
      assertThat(buffer.lastPosition()).isEqualTo(2);
    }

    @Test
    void whenBothBatchesFailTheLaterVersionComesBackAlone() {
      Batches batches = twoBatchesInFlight();
      buffer.add(List.of(update(3, "state", "COMPLETED")), 3, 0, 0, batches.both());

      buffer.settle(batches.first(), false, List.of(batches.second()));
      buffer.settle(batches.second(), false, List.of());

      assertThat(only(buffer).state()).isEqualTo(Map.of("state", "COMPLETED", "a", "x"));
      assertThat(only(buffer).position()).isEqualTo(3);
      assertThat(buffer.recordsSinceAck()).isEqualTo(3);
    }

    @Test
    void ofTwoVersionsWithABaseTheOneFurtherOnWinsWhicheverCameBack() {
      PendingDocument older = new PendingDocument("i", "1");
      older.base(Map.of("state", "ACTIVE"), 4);
      PendingDocument newer = new PendingDocument("i", "1");
      newer.base(Map.of("state", "COMPLETED"), 7);

      assertThat(PendingDocument.newest(older, newer)).isSameAs(newer);
      assertThat(PendingDocument.newest(newer, older)).isSameAs(newer);
    }
  }

  @Test
  void aRecordWithoutChangesStillMovesThePositionToAcknowledge() {
    buffer.add(List.of(), 17, 0, 0);

    assertThat(buffer.isEmpty()).isTrue();
    assertThat(buffer.lastPosition()).isEqualTo(17);
  }
}
