package dev.flowpipe.schema.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The reading of a {@code _tasks} answer, of every status a store gives (the real listing is in the contract test). */
class RunningTasksTest {

  private static final String BULK = "indices:data/write/bulk";

  @Test
  void anAnswerGivesTheRunningTasksAsNodeAndNumber() {
    String answer = """
        {"tasks": [{"node": "n1", "id": 7, "action": "indices:data/write/bulk"},
                   {"node": "n2", "id": 12, "action": "indices:data/write/bulk"}]}""";
    assertThat(RunningTasks.read(BULK, 200, answer)).hasValueSatisfying(ids -> assertThat(ids)
        .containsExactly("n1:7", "n2:12"));
    assertThat(RunningTasks.read(BULK, 200, "{\"tasks\": []}")).hasValueSatisfying(ids -> assertThat(ids).isEmpty());
  }

  @Test
  void aUserWithoutTheMonitorPrivilegeGetsNoAnswerRatherThanAnError() {
    assertThat(RunningTasks.read(BULK, 403, "{\"error\": \"security_exception\"}")).isEmpty();
    assertThat(RunningTasks.read(BULK, 401, "")).isEmpty();
  }

  @Test
  void aStoreInTroubleIsUnavailableAndOtherRefusalsAreNamed() {
    assertThatThrownBy(() -> RunningTasks.read(BULK, 503, "busy")).isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> RunningTasks.read(BULK, 429, "busy")).isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> RunningTasks.read(BULK, 400, "bad")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(BULK).hasMessageContaining("400");
    assertThatThrownBy(() -> RunningTasks.read(BULK, 200, "not json")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void thePathAsksForAFlatListOfTheAction() {
    assertThat(RunningTasks.path(BULK)).isEqualTo("/_tasks?group_by=none&actions=indices%3Adata%2Fwrite%2Fbulk");
  }
}
