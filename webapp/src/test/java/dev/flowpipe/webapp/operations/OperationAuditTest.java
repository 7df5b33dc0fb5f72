package dev.flowpipe.webapp.operations;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The audit log's escaping: no user-controlled text can end a line or pass for one of the log's own escapes. */
class OperationAuditTest {

  @Nested
  class Escaped {

    @Test
    void lineBreaksBecomeVisibleEscapesSoAForgedLineStaysInItsOwn() {
      String forged = "alice\r\n2026-11-27 INFO user 'admin': cancel process instance 1: done (204)";

      String escaped = OperationAudit.escaped(forged);

      assertThat(escaped).doesNotContain("\n", "\r").startsWith("alice\\r\\n2026-11-27 INFO user 'admin'");
      assertThat(escaped.lines()).hasSize(1);
    }

    @Test
    void everyControlCharacterAndTheUnicodeLineSeparatorsAreEscaped() {
      String text = "a\tb\u0000c\u001b[31md\u0085e\u2028f\u2029g\u007f";

      assertThat(OperationAudit.escaped(text))
          .isEqualTo("a\\tb\\u0000c\\u001b[31md\\u0085e\\u2028f\\u2029g\\u007f");
    }

    @Test
    void aBackslashIsDoubledSoAnEscapeInTheTextCannotPassForOne() {
      assertThat(OperationAudit.escaped("x\\ny")).isEqualTo("x\\\\ny");
      assertThat(OperationAudit.escaped("x\ny")).isEqualTo("x\\ny");
    }

    @Test
    void plainTextAndUnicodeLettersStayAsTheyAre() {
      assertThat(OperationAudit.escaped("Zoë 'ops' 注文 ✓")).isEqualTo("Zoë 'ops' 注文 ✓");
      assertThat(OperationAudit.escaped(null)).isEqualTo("null");
    }
  }
}
