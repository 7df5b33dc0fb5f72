package dev.flowpipe.webapp.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.webapp.operations.EngineCommands;
import dev.flowpipe.webapp.operations.OperationRequests;
import dev.flowpipe.webapp.query.BadRequestException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a batch migration or modification does to each of its instances, in the request shapes of Camunda's REST API
 * v2 (8.8): {@code migrationPlan} ({@code targetProcessDefinitionKey}, {@code mappingInstructions}) or
 * {@code moveInstructions} ({@code sourceElementId}, {@code targetElementId}; at least one). Read and checked when the
 * batch is created (a bad instruction is a 400 naming it), kept with the batch, read again where another web app or the
 * next start takes the batch up.
 */
final class InstanceChangePlan {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One move: terminate every active instance of the source element, activate the target element once. */
  record Move(String sourceElementId, String targetElementId) {}

  private InstanceChangePlan() {}

  /** The plan to keep with the batch, checked; null for a batch type without one. */
  static Map<String, Object> read(BatchOperations.Type type, JsonNode request) {
    return switch (type) {
      case MIGRATE_PROCESS_INSTANCE -> {
        JsonNode plan = request.get("migrationPlan");
        if (plan == null || !plan.isObject()) {
          throw new BadRequestException("migrationPlan", "is required (an object with targetProcessDefinitionKey and"
              + " mappingInstructions), was " + plan);
        }
        try {
          OperationRequests.migration(plan);
        } catch (BadRequestException e) {
          throw new BadRequestException("migrationPlan." + e.part(), e.getMessage());
        }
        yield Map.of("migrationPlan", JSON.convertValue(plan, Map.class));
      }
      case MODIFY_PROCESS_INSTANCE -> {
        readMoves(request.get("moveInstructions"));
        yield Map.of("moveInstructions", JSON.convertValue(request.get("moveInstructions"), List.class));
      }
      default -> null;
    };
  }

  /** The migration of a batch's kept plan. */
  static EngineCommands.Migration migration(Map<String, Object> plan) {
    return OperationRequests.migration(JSON.valueToTree(plan.get("migrationPlan")));
  }

  /** The moves of a batch's kept plan. */
  static List<Move> moves(Map<String, Object> plan) {
    return readMoves(JSON.valueToTree(plan.get("moveInstructions")));
  }

  private static List<Move> readMoves(JsonNode instructions) {
    if (instructions == null || !instructions.isArray() || instructions.isEmpty()) {
      throw new BadRequestException("moveInstructions", "is required: at least one {sourceElementId,"
          + " targetElementId}, was " + instructions);
    }
    List<Move> moves = new ArrayList<>();
    for (int i = 0; i < instructions.size(); i++) {
      String part = "moveInstructions[" + i + "]";
      JsonNode instruction = instructions.get(i);
      if (!instruction.isObject()) {
        throw new BadRequestException(part, "must be an object, was " + instruction.getNodeType());
      }
      moves.add(new Move(text(instruction, "sourceElementId", part), text(instruction, "targetElementId", part)));
    }
    return moves;
  }

  private static String text(JsonNode instruction, String field, String part) {
    JsonNode value = instruction.get(field);
    if (value == null || !value.isTextual() || value.asText().isBlank()) {
      throw new BadRequestException(part + "." + field, "is required (a non-empty string), was " + value);
    }
    return value.asText();
  }
}
