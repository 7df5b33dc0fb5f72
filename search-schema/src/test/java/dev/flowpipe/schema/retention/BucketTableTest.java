package dev.flowpipe.schema.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class BucketTableTest {

  private static final Duration DAY = Duration.ofDays(1);
  private static final Instant MONDAY = Instant.parse("2026-11-23T00:00:00Z");

  private final BucketTable table = new BucketTable(DAY);

  @Nested
  class OpeningAPeriod {

    @Test
    void theFirstCreationAtOrPastAPeriodsStartOpensItAtItsKey() {
      assertThat(table.open(1, 100, MONDAY.plusSeconds(5), 100 * 10))
          .contains(new BucketTable.Boundary(1, Period.of(MONDAY, DAY), 100, 1000));
      assertThat(table.open(1, 101, MONDAY.plusSeconds(6), 101 * 10)).as("same period").isEmpty();
      assertThat(table.open(1, 200, MONDAY.plus(DAY), 200 * 10)).map(BucketTable.Boundary::firstKey).contains(200L);
    }

    @Test
    void aReplayedOrClockSkewedCreationOpensNothing() {
      table.open(1, 200, MONDAY.plus(DAY), 200 * 10);

      assertThat(table.open(1, 100, MONDAY.plus(DAY).plus(DAY), 100 * 10)).as("key below the newest boundary").isEmpty();
      assertThat(table.open(1, 300, MONDAY, 300 * 10)).as("time before the newest period").isEmpty();
    }

    @Test
    void eachPartitionOpensItsOwnBoundaries() {
      table.open(1, 100, MONDAY, 100 * 10);
      table.open(2, 7, MONDAY.plus(DAY), 7 * 10);

      assertThat(table.periodOf(2, 50)).contains(Period.of(MONDAY.plus(DAY), DAY));
      assertThat(table.periodOf(1, 50)).as("below partition 1's first boundary: the base").isEmpty();
    }
  }

  @Test
  void everyKeyRoutesToThePeriodOfTheGreatestBoundaryAtOrBelowIt() {
    table.open(1, 100, MONDAY, 100 * 10);
    table.open(1, 200, MONDAY.plus(DAY), 200 * 10);
    table.open(1, 300, MONDAY.plus(DAY.multipliedBy(3)), 300 * 10);

    assertThat(table.periodOf(1, 99)).isEmpty();
    assertThat(table.periodOf(1, 100)).contains(Period.of(MONDAY, DAY));
    assertThat(table.periodOf(1, 199)).contains(Period.of(MONDAY, DAY));
    assertThat(table.periodOf(1, 250)).contains(Period.of(MONDAY.plus(DAY), DAY));
    assertThat(table.periodOf(1, 10_000)).contains(Period.of(MONDAY.plus(DAY.multipliedBy(3)), DAY));
    assertThat(table.periods()).hasSize(3);
  }

  @Test
  void aPeriodIsLiveUntilMarked() {
    Period monday = Period.of(MONDAY, DAY);
    assertThat(table.state(monday)).isEqualTo(BucketTable.State.LIVE);

    table.mark(monday, BucketTable.State.DELETING);

    assertThat(table.state(monday)).isEqualTo(BucketTable.State.DELETING);
  }

  @Nested
  class APeriod {

    @Test
    void isAlignedOnTheEpochAndNamedSoThatNamesSortAsPeriods() {
      Period period = Period.of(Instant.parse("2026-11-27T13:45:07Z"), Duration.ofMinutes(15));

      assertThat(period.start()).isEqualTo(Instant.parse("2026-11-27T13:45:00Z"));
      assertThat(period.end()).isEqualTo(Instant.parse("2026-11-27T14:00:00Z"));
      assertThat(period.indexName("flowpipe")).isEqualTo("flowpipe-p20261127134500-read-model-v2");
    }

    @Test
    void hasEntityNamesTheStoreAdapterRecognisesAsTheEntity() {
      Period period = Period.of(MONDAY, DAY);

      assertThat(dev.flowpipe.schema.index.ReadModelIndex.sharedEntityOf(
          period.entityName("flowpipe", dev.flowpipe.schema.index.ReadModelIndex.VARIABLE)))
          .contains(dev.flowpipe.schema.index.ReadModelIndex.VARIABLE);
    }
  }

  @Test
  void settingsNameTheKeyAndValueTheyRefuse() {
    assertThatThrownBy(() -> new RetentionSettings(Duration.ofDays(-1), DAY, DAY))
        .hasMessage("retention.keep must be positive, was PT-24H");
    assertThatThrownBy(() -> RetentionSettings.of(new RetentionSettings.Keys("k", "p", "c"), DAY,
        Duration.ofMillis(1500), DAY)).hasMessage("p must be whole seconds, at least 1s, was PT1.5S");
    assertThat(RetentionSettings.off().enabled()).isFalse();
  }

  @Test
  void aPeriodIsClosedOnAPartitionByItsNextBoundaryAndStaysOpenWhileItIsTheNewest() {
    table.open(1, 100, MONDAY, 1_000);
    table.open(1, 200, MONDAY.plus(DAY), 2_000);
    table.open(2, 7, MONDAY, 70);

    assertThat(table.closingBoundaries(Period.of(MONDAY, DAY))).containsOnlyKeys(1, 2)
        .containsEntry(1, java.util.Optional.of(new BucketTable.Boundary(1, Period.of(MONDAY.plus(DAY), DAY), 200,
            2_000)))
        .containsEntry(2, java.util.Optional.empty());
    assertThat(table.closingBoundaries(Period.of(MONDAY.plus(DAY), DAY))).containsOnlyKeys(1)
        .containsEntry(1, java.util.Optional.empty());
  }
}
