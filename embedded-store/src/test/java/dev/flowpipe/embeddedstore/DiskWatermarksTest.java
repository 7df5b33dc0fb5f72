package dev.flowpipe.embeddedstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.embeddedstore.DiskWatermarks.State;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class DiskWatermarksTest {

  private static final String P = "flowpipe.store.embedded.disk.";
  private static final long MB = 1024 * 1024;

  @Nested
  class Parsing {

    @Test
    void percentagesAndSizesBecomeTheStoresOwnSettings() {
      assertThat(DiskWatermarks.parse(P, "85%", "90.5%", "95%").storeSettings()).containsExactly(
          java.util.Map.entry("cluster.routing.allocation.disk.watermark.low", "85%"),
          java.util.Map.entry("cluster.routing.allocation.disk.watermark.high", "90.5%"),
          java.util.Map.entry("cluster.routing.allocation.disk.watermark.flood_stage", "95%"));
      assertThat(DiskWatermarks.parse(P, "2gb", "1GB", "500mb").storeSettings().values())
          .containsExactly((2L << 30) + "b", (1L << 30) + "b", (500 * MB) + "b");
    }

    @Test
    void aValueThatIsNeitherAPercentageNorASizeIsRefusedNamingTheKey() {
      assertThatThrownBy(() -> DiskWatermarks.parse(P, "85%", "lots", "95%"))
          .hasMessage(P + "watermark-high must be a share of the disk used (e.g. 90%) or a size of free space "
              + "(e.g. 500mb), was 'lots'");
      assertThatThrownBy(() -> DiskWatermarks.parse(P, "85%", "90%", "101%"))
          .hasMessage(P + "watermark-flood-stage must be a percentage above 0% and up to 100%, was '101%'");
    }

    @Test
    void percentagesAndSizesAreNotMixed() {
      assertThatThrownBy(() -> DiskWatermarks.parse(P, "85%", "1gb", "95%"))
          .hasMessageContaining("must all be percentages or all sizes of free space, were 85%, 1gb, 95%");
    }

    @Test
    void watermarksOutOfOrderAreRefused() {
      assertThatThrownBy(() -> DiskWatermarks.parse(P, "90%", "85%", "95%"))
          .hasMessageContaining("low <= high <= flood-stage");
      // sizes of free space go down as the disk fills
      assertThatThrownBy(() -> DiskWatermarks.parse(P, "1gb", "2gb", "500mb"))
          .hasMessageContaining("low >= high >= flood-stage of free space");
    }
  }

  @Nested
  class Deciding {

    private final DiskWatermarks sizes = DiskWatermarks.parse(P, "300mb", "200mb", "100mb");
    private final long total = 10_000 * MB;

    @Test
    void belowTheHighWatermarkIsOkEvenAboveTheLowOne() {
      assertThat(sizes.state(250 * MB, total, State.OK)).isEqualTo(State.OK);
    }

    @Test
    void lessFreeThanTheHighWatermarkIsHighAndLessThanTheFloodStageIsFlood() {
      assertThat(sizes.state(199 * MB, total, State.OK)).isEqualTo(State.HIGH);
      assertThat(sizes.state(99 * MB, total, State.HIGH)).isEqualTo(State.FLOOD);
    }

    @Test
    void afterAFloodItStaysFloodUntilUsageIsBackBelowTheHighWatermarkAsTheStoreKeepsItsBlock() {
      assertThat(sizes.state(150 * MB, total, State.FLOOD)).isEqualTo(State.FLOOD);
      assertThat(sizes.state(201 * MB, total, State.FLOOD)).isEqualTo(State.OK);
    }

    @Test
    void percentagesCountTheShareUsed() {
      DiskWatermarks percent = DiskWatermarks.DEFAULTS;
      assertThat(percent.state(11 * MB, 100 * MB, State.OK)).as("89% used").isEqualTo(State.OK);
      assertThat(percent.state(9 * MB, 100 * MB, State.OK)).as("91% used").isEqualTo(State.HIGH);
      assertThat(percent.state(4 * MB, 100 * MB, State.HIGH)).as("96% used").isEqualTo(State.FLOOD);
    }
  }
}
