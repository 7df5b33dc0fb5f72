package dev.flowpipe.testsupport;

/**
 * A DMN of one decision whose logic is a literal expression (a number), for tests that need a decision of their own to
 * deploy and evaluate beside test-support's {@code flowpipe/dmn/dish.dmn} (a decision table): its DRD is
 * {@code <id>-drd}, its output variable {@code <id>}.
 */
public final class LiteralExpressionDmn {

  private LiteralExpressionDmn() {}

  /** The DMN XML of decision {@code id} named {@code decisionName}, in a DRD named {@code drdName}. */
  public static String of(String id, String drdName, String decisionName, String expression) {
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="%1$s-drd" name="%2$s"
            namespace="https://flowpipe.dev/dmn/%1$s">
          <decision id="%1$s" name="%3$s">
            <variable id="%1$s-variable" name="%1$s" typeRef="number"/>
            <literalExpression id="%1$s-expression"><text>%4$s</text></literalExpression>
          </decision>
        </definitions>""".formatted(id, drdName, decisionName, expression);
  }
}
