package dev.flowpipe.exporter.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.exporter.identity.LogIdentityCheck.Decision;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The decisions on which log a store's read model comes from, case by case. */
class LogIdentityCheckTest {

  private static final LogIdentity STORED = new LogIdentity("log-a", 1, 5, 1_000);

  private static Decision decide(Optional<String> known, Optional<LogIdentity> stored, long brokerPosition,
      long position, long timestamp) {
    return LogIdentityCheck.decide(1, known, stored, 42, brokerPosition, position, timestamp, () -> "log-new", "OUT");
  }

  @Nested
  class AStoreThatKnowsNoLog {

    @Test
    void takesANewLogUnderANewIdFromItsFirstRecord() {
      assertThat(decide(Optional.empty(), Optional.empty(), -1, 3, 900))
          .isEqualTo(new Decision.First(new LogIdentity("log-new", 1, 3, 900)));
    }

    @Test
    void takesALogTheBrokerKnowsUnderThatLogsId() {
      assertThat(decide(Optional.of("log-b"), Optional.empty(), 70, 71, 900))
          .isEqualTo(new Decision.First(new LogIdentity("log-b", 1, 71, 900)));
    }
  }

  @Nested
  class AStoreThatKnowsALog {

    @Test
    void exportsOnWhenTheBrokerKnowsTheSameId() {
      assertThat(decide(Optional.of("log-a"), Optional.of(STORED), 70, 71, 900)).isEqualTo(new Decision.Same(STORED));
    }

    @Test
    void refusesAnotherIdNamingBothLogsTheStoresPositionAndTheWayOut() {
      Decision decision = decide(Optional.of("log-b"), Optional.of(STORED), 70, 71, 900);

      assertThat(decision).isInstanceOf(Decision.Foreign.class);
      assertThat(((Decision.Foreign) decision).message()).contains("log log-b").contains("log log-a")
          .contains("exported up to position 42").endsWith("OUT");
    }

    @Test
    void exportsOnWhenTheBrokerLostTheIdButTheFirstRecordIsTheStoresFirst() {
      assertThat(decide(Optional.empty(), Optional.of(STORED), -1, 5, 1_000)).isEqualTo(new Decision.Same(STORED));
    }

    @Test
    void refusesANewLogWhoseFirstRecordIsAnotherAtTheSamePosition() {
      Decision decision = decide(Optional.empty(), Optional.of(STORED), -1, 5, 2_000);

      assertThat(decision).isInstanceOf(Decision.Foreign.class);
      assertThat(((Decision.Foreign) decision).message()).contains("starts again at position 5")
          .contains("log log-a").contains("wiped");
    }

    @Test
    void refusesANewLogStartingBelowTheStoresFirstRecord() {
      assertThat(decide(Optional.empty(), Optional.of(STORED), -1, 1, 1_000)).isInstanceOf(Decision.Foreign.class);
    }

    @Test
    void takesABrokerThatAcknowledgedPositionsBeforeLogIdentitiesAsTheStoresLog() {
      assertThat(decide(Optional.empty(), Optional.of(STORED), 300, 301, 5_000)).isEqualTo(new Decision.Same(STORED));
    }
  }

  @Test
  void theIdTravelsInTheExportersMetadataAndOtherMetadataCarriesNone() {
    assertThat(LogIdentity.logIdOf(STORED.metadata())).contains("log-a");
    assertThat(LogIdentity.logIdOf("something else".getBytes())).isEmpty();
    assertThat(LogIdentity.logIdOf(null)).isEmpty();
  }
}
