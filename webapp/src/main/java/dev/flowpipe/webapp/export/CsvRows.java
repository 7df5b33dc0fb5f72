package dev.flowpipe.webapp.export;

import java.util.List;

/**
 * Writes CSV (RFC 4180) that a spreadsheet opens as text: a field with a comma, a quote or a line break is quoted (its
 * quotes doubled), and a field that a spreadsheet would run as a formula (starting with {@code = + - @}, a tab or a
 * carriage return) is prefixed with a single quote, as OWASP advises against CSV injection.
 */
final class CsvRows {

  private CsvRows() {}

  /** One line, ending in CRLF. */
  static String line(List<?> fields) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < fields.size(); i++) {
      if (i > 0) {
        line.append(',');
      }
      line.append(field(fields.get(i)));
    }
    return line.append("\r\n").toString();
  }

  static String field(Object value) {
    if (value == null) {
      return "";
    }
    String text = String.valueOf(value);
    if (!text.isEmpty() && "=+-@\t\r".indexOf(text.charAt(0)) >= 0) {
      text = "'" + text;
    }
    if (text.indexOf(',') >= 0 || text.indexOf('"') >= 0 || text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0) {
      return '"' + text.replace("\"", "\"\"") + '"';
    }
    return text;
  }
}
