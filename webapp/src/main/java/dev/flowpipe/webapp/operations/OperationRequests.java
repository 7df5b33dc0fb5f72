package dev.flowpipe.webapp.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.webapp.query.BadRequestException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operations' request bodies and path keys, in the shapes of Camunda's REST API v2, read and checked; a bad part
 * is a {@link BadRequestException} naming it. Keys are strings of digits (numbers are accepted too).
 */
public final class OperationRequests {

  private static final ObjectMapper JSON = new ObjectMapper();

  private OperationRequests() {}

  public static long key(String part, String text) {
    try {
      long key = Long.parseLong(text.trim());
      if (key > 0) {
        return key;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new BadRequestException(part, "must be a key (a positive whole number, as a string of digits), was '"
        + text + "'");
  }

  /** {@code PATCH /v2/jobs/{jobKey}}: {@code {"changeset": {"retries": n, "timeout": ms}}}, at least one of them. */
  record JobChange(Integer retries, Duration timeout) {
    static JobChange of(JsonNode body) {
      JsonNode changeset = object(body, "changeset", true);
      Integer retries = null;
      Duration timeout = null;
      if (changeset.hasNonNull("retries")) {
        JsonNode value = changeset.get("retries");
        if (!value.canConvertToInt() || !value.isIntegralNumber() || value.intValue() < 0) {
          throw new BadRequestException("changeset.retries", "must be a whole number >= 0, was " + value);
        }
        retries = value.intValue();
      }
      if (changeset.hasNonNull("timeout")) {
        JsonNode value = changeset.get("timeout");
        if (!value.isIntegralNumber() || value.longValue() < 0) {
          throw new BadRequestException("changeset.timeout", "must be milliseconds, a whole number >= 0, was "
              + value);
        }
        timeout = Duration.ofMillis(value.longValue());
      }
      if (retries == null && timeout == null) {
        throw new BadRequestException("changeset", "must set retries, timeout or both");
      }
      return new JobChange(retries, timeout);
    }
  }

  /** {@code PUT /v2/element-instances/{key}/variables}: {@code {"variables": {...}, "local": false}}. */
  record VariablesChange(Map<String, Object> variables, boolean local) {
    static VariablesChange of(JsonNode body) {
      JsonNode variables = object(body, "variables", true);
      JsonNode local = body.get("local");
      if (local != null && !local.isNull() && !local.isBoolean()) {
        throw new BadRequestException("local", "must be true or false, was " + local);
      }
      return new VariablesChange(toMap(variables), local != null && local.asBoolean());
    }
  }

  /** {@code POST /v2/process-instances}: by {@code processDefinitionKey}, or {@code processDefinitionId} and version. */
  static EngineCommands.InstanceToCreate instanceToCreate(JsonNode body) {
    requireObject(body);
    Long definitionKey = body.hasNonNull("processDefinitionKey")
        ? key("processDefinitionKey", body.get("processDefinitionKey").asText()) : null;
    String definitionId = text(body, "processDefinitionId");
    if ((definitionKey == null) == (definitionId == null)) {
      throw new BadRequestException("processDefinitionKey", "give either processDefinitionKey or processDefinitionId"
          + " (with processDefinitionVersion, default -1: the latest), not " + (definitionKey == null ? "neither"
          : "both"));
    }
    int version = -1;
    if (body.hasNonNull("processDefinitionVersion")) {
      JsonNode value = body.get("processDefinitionVersion");
      if (!value.isIntegralNumber() || value.intValue() < -1 || value.intValue() == 0) {
        throw new BadRequestException("processDefinitionVersion", "must be a version >= 1, or -1 for the latest, was "
            + value);
      }
      version = value.intValue();
    }
    JsonNode variables = object(body, "variables", false);
    return new EngineCommands.InstanceToCreate(definitionKey, definitionId, version,
        variables == null ? Map.of() : toMap(variables), text(body, "tenantId"));
  }

  /** {@code POST /v2/messages/publication}. */
  static EngineCommands.MessageToPublish messageToPublish(JsonNode body) {
    requireObject(body);
    String name = text(body, "name");
    if (name == null || name.isBlank()) {
      throw new BadRequestException("name", "the message name is required");
    }
    Duration timeToLive = Duration.ZERO;
    if (body.hasNonNull("timeToLive")) {
      JsonNode value = body.get("timeToLive");
      if (!value.isIntegralNumber() || value.longValue() < 0) {
        throw new BadRequestException("timeToLive", "must be milliseconds, a whole number >= 0, was " + value);
      }
      timeToLive = Duration.ofMillis(value.longValue());
    }
    JsonNode variables = object(body, "variables", false);
    return new EngineCommands.MessageToPublish(name, text(body, "correlationKey"), timeToLive,
        text(body, "messageId"), variables == null ? Map.of() : toMap(variables), text(body, "tenantId"));
  }

  /**
   * {@code POST /v2/process-instances/{key}/modification} (8.8): {@code activateInstructions} ({@code elementId},
   * {@code ancestorElementInstanceKey} (default -1: the engine finds the flow scope), {@code variableInstructions}
   * ({@code variables}, {@code scopeId})) and {@code terminateInstructions} ({@code elementInstanceKey}), at least one
   * instruction. 8.9's {@code moveInstructions} and termination by {@code elementId} have no command in Zeebe 8.6:
   * named as not supported.
   */
  static EngineCommands.Modification modification(JsonNode body) {
    requireObject(body);
    JsonNode move = body.get("moveInstructions");
    if (move != null && !move.isNull() && !(move.isArray() && move.isEmpty())) {
      throw new BadRequestException("moveInstructions", "is not supported: Zeebe 8.6 has no such instruction");
    }
    List<EngineCommands.Activation> activations = new ArrayList<>();
    JsonNode activate = array(body, "activateInstructions");
    for (int i = 0; i < activate.size(); i++) {
      String part = "activateInstructions[" + i + "]";
      JsonNode instruction = element(activate, i, part);
      String elementId = requiredText(instruction, "elementId", part);
      long ancestor = -1;
      JsonNode ancestorKey = instruction.get("ancestorElementInstanceKey");
      if (ancestorKey != null && !ancestorKey.isNull() && !"-1".equals(ancestorKey.asText())) {
        ancestor = key(part + ".ancestorElementInstanceKey", ancestorKey.asText());
      }
      List<EngineCommands.ScopedVariables> variables = new ArrayList<>();
      JsonNode variableInstructions = array(instruction, "variableInstructions");
      for (int j = 0; j < variableInstructions.size(); j++) {
        String variablePart = part + ".variableInstructions[" + j + "]";
        JsonNode variableInstruction = element(variableInstructions, j, variablePart);
        JsonNode values = variableInstruction.get("variables");
        if (values == null || !values.isObject()) {
          throw new BadRequestException(variablePart + ".variables", "is required (an object), was " + values);
        }
        String scopeId = variableInstruction.hasNonNull("scopeId") && !variableInstruction.get("scopeId").asText()
            .isEmpty() ? requiredText(variableInstruction, "scopeId", variablePart) : null;
        variables.add(new EngineCommands.ScopedVariables(toMap(values), scopeId));
      }
      activations.add(new EngineCommands.Activation(elementId, ancestor, variables));
    }
    List<Long> terminations = new ArrayList<>();
    JsonNode terminate = array(body, "terminateInstructions");
    for (int i = 0; i < terminate.size(); i++) {
      String part = "terminateInstructions[" + i + "]";
      JsonNode instruction = element(terminate, i, part);
      if (!instruction.hasNonNull("elementInstanceKey")) {
        throw new BadRequestException(part + ".elementInstanceKey", instruction.hasNonNull("elementId")
            ? "is required: termination by elementId (8.9) has no command in Zeebe 8.6" : "is required");
      }
      terminations.add(key(part + ".elementInstanceKey", instruction.get("elementInstanceKey").asText()));
    }
    if (activations.isEmpty() && terminations.isEmpty()) {
      throw new BadRequestException("body", "give at least one of activateInstructions and terminateInstructions");
    }
    return new EngineCommands.Modification(activations, terminations);
  }

  /**
   * {@code POST /v2/process-instances/{key}/migration}: {@code targetProcessDefinitionKey} and {@code
   * mappingInstructions} ({@code sourceElementId}, {@code targetElementId}), at least one.
   */
  public static EngineCommands.Migration migration(JsonNode body) {
    requireObject(body);
    JsonNode target = body.get("targetProcessDefinitionKey");
    if (target == null || target.isNull()) {
      throw new BadRequestException("targetProcessDefinitionKey", "is required");
    }
    long targetKey = key("targetProcessDefinitionKey", target.asText());
    List<EngineCommands.ElementMapping> mappings = new ArrayList<>();
    JsonNode instructions = array(body, "mappingInstructions");
    for (int i = 0; i < instructions.size(); i++) {
      String part = "mappingInstructions[" + i + "]";
      JsonNode instruction = element(instructions, i, part);
      mappings.add(new EngineCommands.ElementMapping(requiredText(instruction, "sourceElementId", part),
          requiredText(instruction, "targetElementId", part)));
    }
    if (mappings.isEmpty()) {
      throw new BadRequestException("mappingInstructions", "must map at least one source element to a target element");
    }
    return new EngineCommands.Migration(targetKey, mappings);
  }

  /** The array {@code field} of {@code body}, empty where absent or null. */
  private static JsonNode array(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      return JSON.createArrayNode();
    }
    if (!value.isArray()) {
      throw new BadRequestException(field, "must be an array, was " + value.getNodeType());
    }
    return value;
  }

  private static JsonNode element(JsonNode array, int index, String part) {
    JsonNode element = array.get(index);
    if (!element.isObject()) {
      throw new BadRequestException(part, "must be an object, was " + element.getNodeType());
    }
    return element;
  }

  private static String requiredText(JsonNode object, String field, String part) {
    JsonNode value = object.get(field);
    if (value == null || !value.isTextual() || value.asText().isBlank()) {
      throw new BadRequestException(part + "." + field, "is required (a non-empty string), was " + value);
    }
    return value.asText();
  }

  private static void requireObject(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw new BadRequestException("body", "must be a JSON object");
    }
  }

  private static JsonNode object(JsonNode body, String field, boolean required) {
    requireObject(body);
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      if (required) {
        throw new BadRequestException(field, "is required (an object)");
      }
      return null;
    }
    if (!value.isObject()) {
      throw new BadRequestException(field, "must be an object, was " + value.getNodeType());
    }
    return value;
  }

  private static String text(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw new BadRequestException(field, "must be a string, was " + value);
    }
    return value.asText();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> toMap(JsonNode object) {
    return new LinkedHashMap<>(JSON.convertValue(object, Map.class));
  }
}
