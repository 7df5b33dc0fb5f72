package dev.flowpipe.node.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

// timing-sensitive (limits, engage and release times, refusals at light load): no other class runs beside it
@Isolated
class DiskPressureTest {

  @Test
  void belowTheHighWatermarkTheLimitIsTheControllers() {
    assertThat(DiskPressure.hold(OptionalInt.empty(), false, 100)).isEmpty();
    assertThat(DiskPressure.hold(OptionalInt.of(500), false, 100)).hasValue(500);
  }

  @Test
  void aboveTheHighWatermarkWritesAreHeldAtTheFloorWithOrWithoutAControllerLimit() {
    assertThat(DiskPressure.hold(OptionalInt.empty(), true, 100)).hasValue(100);
    assertThat(DiskPressure.hold(OptionalInt.of(500), true, 100)).hasValue(100);
  }

  @Test
  void aStaticLimitBelowTheFloorStays() {
    assertThat(DiskPressure.hold(OptionalInt.of(40), true, 100)).hasValue(40);
  }
}
