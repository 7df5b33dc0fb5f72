package dev.flowpipe.schema.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the entities' fields merge into the shared read-model index's mapping. */
class ReadModelIndexTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void entitiesThatDeclareAFieldAlikeShareIt() throws Exception {
    ObjectNode properties = JSON.createObjectNode();
    Map<String, String> declaredBy = new LinkedHashMap<>();

    ReadModelIndex.addFields(properties, declaredBy, "job", fields("{\"key\":{\"type\":\"long\"}}"));
    ReadModelIndex.addFields(properties, declaredBy, "incident",
        fields("{\"key\":{\"type\":\"long\"},\"errorType\":{\"type\":\"keyword\"}}"));

    assertThat(properties.toString()).isEqualTo("{\"key\":{\"type\":\"long\"},\"errorType\":{\"type\":\"keyword\"}}");
    assertThat(declaredBy).containsEntry("key", "job").containsEntry("errorType", "incident");
  }

  @Test
  void aFieldTwoEntitiesDeclareDifferentlyFailsNamingBothAndTheMappings() throws Exception {
    ObjectNode properties = JSON.createObjectNode();
    Map<String, String> declaredBy = new LinkedHashMap<>();
    ReadModelIndex.addFields(properties, declaredBy, "job", fields("{\"state\":{\"type\":\"keyword\"}}"));

    assertThatThrownBy(() -> ReadModelIndex.addFields(properties, declaredBy, "incident",
        fields("{\"state\":{\"type\":\"text\"}}")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("field 'state' is {\"type\":\"text\"} in incident but {\"type\":\"keyword\"} in job: "
            + "entities sharing the read-model index must agree");
  }

  @Test
  void theRealEntitiesAgreeAndEveryEntityNameIsAnAliasOfTheSharedIndex() throws Exception {
    JsonNode body = JSON.readTree(ReadModelIndex.sharedIndexBody("p", "1s"));

    for (ReadModelIndex index : ReadModelIndex.values()) {
      if (index.shared()) {
        assertThat(body.path("aliases").has(index.indexName("p"))).as(index.entity()).isTrue();
      }
    }
    assertThat(body.path("mappings").path("properties").has("kind")).isTrue();
  }

  private static JsonNode fields(String json) throws Exception {
    return JSON.readTree(json);
  }
}
