package dev.flowpipe.node.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.node.config.FlowControlProperties;
import dev.flowpipe.node.config.FlowControlProperties.Mode;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class WriteRateControllerTest {

  private final FlowControlProperties settings = FlowControlProperties.defaults(); // time mode, 2s, floor 100/s
  private final WriteRateController controller = new WriteRateController();

  private static PartitionLag lag(long ageMillis, double exportRate, double writeRate) {
    return new PartitionLag(1, 10_000, 9_000, Duration.ofMillis(ageMillis), exportRate, writeRate);
  }

  @Nested
  class InTimeMode {

    @Test
    void leavesWritesUnlimitedWhileTheLagIsBelowHalfTheTarget() {
      assertThat(controller.next(settings, lag(900, 500, 500))).isEmpty();
      assertThat(controller.throttling()).isFalse();
    }

    @Test
    void limitsToTheExportRateWhenTheLagIsAtTheTarget() {
      OptionalInt limit = controller.next(settings, lag(2_000, 500, 900));
      assertThat(limit).hasValue(500);
      assertThat(controller.throttling()).isTrue();
    }

    @Test
    void limitsBelowTheExportRateWhileTheLagIsAboveTheTargetAndNeverBelowTheFloor() {
      assertThat(controller.next(settings, lag(3_000, 500, 900)).getAsInt()).isLessThan(500);
      assertThat(new WriteRateController().next(settings, lag(60_000, 20, 900))).hasValue(100);
      assertThat(new WriteRateController().next(settings, lag(60_000, 0, 0))).as("store down").hasValue(100);
    }

    @Test
    void allowsMoreThanTheExportRateWhileBelowTheTargetSoTheLagRisesToIt() {
      controller.next(settings, lag(2_000, 500, 900));
      assertThat(controller.next(settings, lag(1_200, 500, 900)).getAsInt()).isGreaterThan(500);
    }

    @Test
    void keepsCorrectingAPersistentOffset() {
      int first = controller.next(settings, lag(2_400, 500, 500)).getAsInt();
      int later = first;
      for (int i = 0; i < 8; i++) {
        later = controller.next(settings, lag(2_400, 500, 500)).getAsInt();
      }
      assertThat(later).as("integral term lowers the limit while the lag stays above target").isLessThan(first);
    }

    @Test
    void letsGoAfterASecondOfLowLagWithWritesBelowTheLimit() {
      controller.next(settings, lag(3_000, 500, 900));
      int ticksPerSecond = (int) (1000 / settings.resolution().toMillis());
      for (int i = 1; i < ticksPerSecond; i++) {
        assertThat(controller.next(settings, lag(100, 500, 300))).isPresent();
      }
      assertThat(controller.next(settings, lag(100, 500, 300))).isEmpty();
      assertThat(controller.throttling()).isFalse();
    }
  }

  @Test
  void inRecordsModeHoldsTheBacklogInsteadOfTheAge() {
    FlowControlProperties records = settings.with(null, Mode.RECORDS, null, 1_000L, null, null, null);
    assertThat(controller.next(records, lag(60_000, 500, 500))).as("backlog 1000 is at the target").hasValue(500);
    assertThat(new WriteRateController().next(records.with(null, null, null, 10_000L, null, null, null),
        lag(60_000, 500, 500))).as("backlog well below the target, age ignored").isEmpty();
  }

  @Test
  void disabledNeverLimitsButAStaticLimitStillApplies() {
    FlowControlProperties off = settings.with(false, null, null, null, null, null, 300);
    OptionalInt controlled = controller.next(off, lag(60_000, 10, 900));
    assertThat(controlled).isEmpty();
    assertThat(WriteRateController.effective(off, controlled)).hasValue(300);
    assertThat(WriteRateController.effective(settings.with(null, null, null, null, null, null, 300),
        OptionalInt.of(500))).as("the lower of the two").hasValue(300);
  }
}
