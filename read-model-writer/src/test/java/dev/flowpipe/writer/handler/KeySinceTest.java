package dev.flowpipe.writer.handler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The history of a key field by log position ({@link FieldEdit.KeySince}), as a replay and a reader see it. */
class KeySinceTest {

  @Test
  void entriesAreKeptOnceInPositionOrderWhateverOrderTheyComeIn() {
    Map<String, Object> document = new HashMap<>();

    new FieldEdit.KeySince("history", 50, 2).applyTo(document);
    new FieldEdit.KeySince("history", 5, 1).applyTo(document);
    new FieldEdit.KeySince("history", 50, 2).applyTo(document);

    assertThat(document.get("history")).isEqualTo(List.of("5:1", "50:2"));
  }

  @Test
  void theKeyAtAPositionIsTheLastOneSinceAtOrBeforeIt() {
    List<String> history = List.of("5:1", "50:2", "70:3");

    assertThat(FieldEdit.KeySince.at(history, 4)).isNull();
    assertThat(FieldEdit.KeySince.at(history, 5)).isEqualTo(1L);
    assertThat(FieldEdit.KeySince.at(history, 49)).isEqualTo(1L);
    assertThat(FieldEdit.KeySince.at(history, 50)).isEqualTo(2L);
    assertThat(FieldEdit.KeySince.at(history, 1_000)).isEqualTo(3L);
    assertThat(FieldEdit.KeySince.at(null, 1_000)).isNull();
  }
}
