package dev.flowpipe.schema.index;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class VariableEntriesTest {

  @Nested
  class AnEntry {

    @Test
    void isTheNameAndTheJsonTextOfTheValue() {
      assertThat(VariableEntries.entry("tier", "\"gold\"")).isEqualTo("tier=\"gold\"");
      assertThat(VariableEntries.entry("total", "120")).isEqualTo("total=120");
    }

    @Test
    void escapesTheNameSoNoTwoPairsGiveOneEntry() {
      assertThat(VariableEntries.entry("a=b", "1")).isEqualTo("a\\=b=1");
      assertThat(VariableEntries.entry("a", "b=1")).isEqualTo("a=b=1");
      assertThat(VariableEntries.entry("a\\", "=1")).isEqualTo("a\\\\==1");
      assertThat(VariableEntries.entry("a\0b", "1")).isEqualTo("a\\0b=1");
    }

    @Test
    void isKeptWholeUpTo254CharactersAndShortenedWithItsHashBeyond() {
      String at254 = VariableEntries.entry("v", "x".repeat(252));
      assertThat(at254).hasSize(254).isEqualTo("v=" + "x".repeat(252));

      String longOne = VariableEntries.entry("v", "x".repeat(253));
      String otherLongOne = VariableEntries.entry("v", "x".repeat(254));
      assertThat(longOne).hasSize(VariableEntries.SHORTENED_CHARS).startsWith("v=" + "x".repeat(188) + "#");
      assertThat(otherLongOne).as("values alike in their first characters stay apart").isNotEqualTo(longOne)
          .hasSize(VariableEntries.SHORTENED_CHARS);
      assertThat(VariableEntries.entry("v", "x".repeat(253))).as("the same value, the same entry").isEqualTo(longOne);
    }

    @Test
    void neverEndsInHalfASurrogatePair() {
      String entry = VariableEntries.entry("v", "x".repeat(187) + "\uD83D\uDE00" + "y".repeat(100));
      assertThat(entry.charAt(entry.indexOf('#') - 1)).isNotEqualTo('\uD83D');
    }
  }

  @Test
  void aNamePatternEscapesTheWildcardsOfTheName() {
    assertThat(VariableEntries.namePrefixAsPattern("a*b?")).isEqualTo("a\\*b\\?=");
    assertThat(VariableEntries.namePrefixAsPattern("a=b")).isEqualTo("a\\\\=b=");
  }
}
