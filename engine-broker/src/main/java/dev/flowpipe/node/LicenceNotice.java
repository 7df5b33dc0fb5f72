package dev.flowpipe.node;

import java.io.PrintStream;

/**
 * The first thing the node prints: the engine it embeds is not open source. Printed before Spring starts, so that
 * it stands at the top of every log, whatever the logging configuration says.
 */
final class LicenceNotice {

  static final String TEXT =
      """
      ----------------------------------------------------------------------------------------------------
       flowpipe node: this process embeds the Zeebe 8.6 broker, which is licensed under the
       Camunda License 1.0. It allows non-production use (development, testing, evaluation) only;
       production use needs a licence from Camunda. For production, run flowpipe beside your own
       licensed Zeebe cluster (README, "Production: beside your Zeebe"). flowpipe's own code is Apache-2.0.
      ----------------------------------------------------------------------------------------------------
      """;

  private LicenceNotice() {}

  static void printTo(PrintStream out) {
    out.print(TEXT);
    out.flush();
  }
}
