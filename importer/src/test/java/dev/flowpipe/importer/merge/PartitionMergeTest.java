package dev.flowpipe.importer.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.importer.source.RawRecord;
import dev.flowpipe.importer.source.RecordSource;
import dev.flowpipe.importer.source.SequenceReader;
import dev.flowpipe.importer.source.Sequences;
import io.camunda.zeebe.protocol.record.ImmutableRecord;
import io.camunda.zeebe.protocol.record.RecordValue;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The merge of a partition's value types into log order, on sources held in memory and a hand-moved clock. */
class PartitionMergeTest {

  private final VisibilityWatermark watermark = new VisibilityWatermark(Duration.ofMillis(500));
  private final HeldRecords instances = new HeldRecords();
  private final HeldRecords incidents = new HeldRecords();
  private final PartitionMerge merge = new PartitionMerge(List.of(instances, incidents), watermark);

  @Test
  void givesNothingOutBeforeTheWatermarkIsComplete() {
    instances.holds(1, 2).readAt(0);
    incidents.readAt(0);
    watermark.probed(2, Optional.empty(), 0); // a store that does not let the importer list its bulks: the grace
    assertThat(merge.next()).isNull();
    assertThat(watermark.completionDue(499)).isFalse();
    assertThat(watermark.completionDue(500)).isTrue();
  }

  @Test
  void theWatermarkWaitsForTheBulksInFlightAtTheProbeAndNotForTheGrace() {
    // a slow store: the bulk that made position 2 searchable still writes its other items
    watermark.probed(2, Optional.of(Set.of("n1:7", "n1:9")), 0);
    assertThat(watermark.completionDue(0)).as("no grace where the bulks can be listed").isTrue();
    assertThat(watermark.writesEnded(Set.of("n1:9", "n1:12"))).as("n1:9 still runs").isFalse();
    assertThat(watermark.millisUntilCompletion(0)).isEqualTo(VisibilityWatermark.WRITES_RECHECK_MILLIS);
    assertThat(watermark.writesEnded(Set.of("n1:12"))).as("bulks begun after the probe do not count").isTrue();
    assertThat(watermark.awaitsWrites()).isFalse();
  }

  @Test
  void aLaterProbeAwaitsOnlyItsOwnBulks() {
    watermark.probed(2, Optional.of(Set.of("n1:7")), 0);
    watermark.completed(600);
    watermark.probed(5, Optional.of(Set.of()), 700);
    assertThat(watermark.awaitsWrites()).isFalse();
    assertThat(watermark.completionDue(700)).isTrue();
  }

  @Test
  void givesOutInLogOrderAcrossValueTypes() {
    instances.holds(1, 2, 5).readAt(600);
    incidents.holds(3, 4).readAt(600);
    complete(5, 500);
    assertThat(positions(5)).containsExactly(1L, 2L, 3L, 4L, 5L);
  }

  @Test
  void waitsForAnEmptyTypeToReadAgainAfterTheWatermarkCompleted() {
    instances.holds(1, 2).readAt(600);
    incidents.readAt(100); // before completion: a record of it below 2 may have been invisible then
    complete(2, 500);
    assertThat(merge.next()).isNull();
    assertThat(merge.needsRead(incidents)).isTrue();
    incidents.readAt(600);
    assertThat(positions(2)).containsExactly(1L, 2L);
  }

  @Test
  void stopsAtAHoleItsOwnLaterRecordProvesLiesBelowTheWatermark() {
    instances.holds(1, 2, 6).readAt(600);
    incidents.gapFoundAt(4).readAt(600);
    complete(6, 500);
    assertThat(merge.next()).isNull();
  }

  @Test
  void aHoleAboveTheWatermarkDoesNotStopWhatLiesBelow() {
    instances.holds(1, 2).readAt(600);
    incidents.gapFoundAt(9).readAt(600);
    complete(2, 500);
    assertThat(positions(2)).containsExactly(1L, 2L);
  }

  @Test
  void recordsAboveTheWatermarkWait() {
    instances.holds(1, 7).readAt(600);
    incidents.readAt(600);
    complete(3, 500);
    assertThat(positions(2)).containsExactly(1L);
  }

  private void complete(long position, long atMillis) {
    watermark.probed(position, Optional.of(Set.of()), 0);
    watermark.completed(atMillis);
  }

  private List<Long> positions(int max) {
    List<Long> given = new java.util.ArrayList<>();
    for (RawRecord next = merge.next(); next != null && given.size() < max; next = merge.next()) {
      given.add(next.position());
    }
    return given;
  }

  /** A value type's records as a reader would hold them after its last read. */
  private static final class HeldRecords implements RecordSource {
    private final ArrayDeque<RawRecord> held = new ArrayDeque<>();
    private long readAt = -1;
    private SequenceReader.Gap gap;

    HeldRecords holds(long... positions) {
      for (long position : positions) {
        held.add(new RawRecord(Sequences.of(1, held.size() + 1),
            ImmutableRecord.<RecordValue>builder().withPosition(position).withPartitionId(1).build()));
      }
      return this;
    }

    HeldRecords gapFoundAt(long position) {
      gap = new SequenceReader.Gap(1, 2, position, 0);
      return this;
    }

    HeldRecords readAt(long millis) {
      readAt = millis;
      return this;
    }

    @Override
    public RawRecord peek() {
      return held.peekFirst();
    }

    @Override
    public RawRecord take() {
      return held.pollFirst();
    }

    @Override
    public boolean isEmpty() {
      return held.isEmpty();
    }

    @Override
    public long lastReadStartMillis() {
      return readAt;
    }

    @Override
    public SequenceReader.Gap gap() {
      return gap;
    }

    @Override
    public boolean moreUnread() {
      return false;
    }
  }
}
