package dev.flowpipe.writer.handler;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StartFormTest {

  private static boolean hasStartForm(String processContent) {
    String bpmn = """
        <bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
            xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
          <bpmn:process id="other" isExecutable="true">
            <bpmn:startEvent id="s0"><bpmn:extensionElements><zeebe:formDefinition formId="f0"/></bpmn:extensionElements></bpmn:startEvent>
          </bpmn:process>
          <bpmn:process id="order" isExecutable="true">%s</bpmn:process>
        </bpmn:definitions>""".formatted(processContent);
    return StartForm.of(bpmn.getBytes(StandardCharsets.UTF_8), "order");
  }

  @Test
  void aStartEventOfTheProcessWithAFormIdOrAFormKeyHasAStartForm() {
    assertThat(hasStartForm("""
        <bpmn:startEvent id="s"><bpmn:extensionElements><zeebe:formDefinition formId="request"/></bpmn:extensionElements></bpmn:startEvent>""")).isTrue();
    assertThat(hasStartForm("""
        <bpmn:startEvent id="s"><bpmn:extensionElements><zeebe:formDefinition formKey="camunda-forms:bpmn:f"/></bpmn:extensionElements></bpmn:startEvent>""")).isTrue();
  }

  @Test
  void aFormElsewhereOrInAnotherProcessIsNoStartForm() {
    assertThat(hasStartForm("<bpmn:startEvent id=\"s\"/>")).as("another process's start form").isFalse();
    assertThat(hasStartForm("""
        <bpmn:startEvent id="s"/>
        <bpmn:userTask id="u"><bpmn:extensionElements><zeebe:formDefinition formId="task"/></bpmn:extensionElements></bpmn:userTask>""")).isFalse();
    assertThat(hasStartForm("""
        <bpmn:startEvent id="s"/>
        <bpmn:subProcess id="sub"><bpmn:startEvent id="ss"><bpmn:extensionElements><zeebe:formDefinition formId="inner"/></bpmn:extensionElements></bpmn:startEvent></bpmn:subProcess>""")).isFalse();
  }
}
