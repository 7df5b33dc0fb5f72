package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.webapp.query.Entity;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The web app's answers read back into the read model's terms compare equal to the stored documents they came from,
 * although the API renames some stored values (a cancelled instance is TERMINATED, a held job CREATED).
 */
class WebAppReadModelTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static Object canonical(Entity entity, String field, Object stored) {
    return WebAppReadModel.canonical(entity.field(field).orElseThrow(), stored);
  }

  @Test
  void aRenamedStateReadsBackAsTheStoredValueItCameFrom() throws Exception {
    Map<String, Object> instance = WebAppReadModel.document(Entity.PROCESS_INSTANCES,
        JSON.readTree("{\"processInstanceKey\": \"7\", \"state\": \"TERMINATED\", \"hasIncident\": false}"));

    assertThat(instance).isEqualTo(Map.of("key", 7L, "state", "CANCELED", "incident", false));
    assertThat(canonical(Entity.PROCESS_INSTANCES, "state", "CANCELED")).isEqualTo("CANCELED");
  }

  @Test
  void aHeldJobAndACreatedOneCompareAlikeOnBothSides() throws Exception {
    Map<String, Object> job = WebAppReadModel.document(Entity.JOBS, JSON.readTree("{\"jobKey\": \"8\", \"state\": \"CREATED\"}"));

    assertThat(job.get("state")).isEqualTo(canonical(Entity.JOBS, "state", "ACTIVATED"));
    assertThat(canonical(Entity.JOBS, "state", "FAILED")).isEqualTo("FAILED");
  }

  @Test
  void aDerivedFieldDoesNotOverwriteTheStoredFieldItIsDerivedFrom() throws Exception {
    Map<String, Object> element = WebAppReadModel.document(Entity.ELEMENT_INSTANCES,
        JSON.readTree("{\"elementInstanceKey\": \"5\", \"incidentKey\": \"9\", \"hasIncident\": true}"));

    assertThat(element).isEqualTo(Map.of("key", 5L, "incidentKey", 9L));
  }
}
