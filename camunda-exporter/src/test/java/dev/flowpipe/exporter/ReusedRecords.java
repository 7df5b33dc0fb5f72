package dev.flowpipe.exporter;

import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordValue;
import io.camunda.zeebe.protocol.record.ValueType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.EnumMap;
import java.util.Map;

/**
 * Hands records to the exporter as the broker does: one record object per value type, reused for every record of that
 * type, so that what the exporter reads from it after {@code export()} returned belongs to a later record.
 */
final class ReusedRecords {

  private final Map<ValueType, Slot> slots = new EnumMap<>(ValueType.class);

  /** The one object of this record's value type, now showing this record (and its value). */
  Record<?> show(Record<?> record) {
    Slot slot = slots.computeIfAbsent(record.getValueType(), type -> new Slot(record));
    slot.current = record;
    return slot.view;
  }

  private static final class Slot {
    private Record<?> current;
    private final Record<?> view;

    @SuppressWarnings("unchecked")
    Slot(Record<?> first) {
      Class<?> valueInterface = valueInterface(first.getValue().getClass());
      Object value = Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {valueInterface},
          (proxy, method, args) -> invoke(current.getValue(), method, args));
      view = (Record<?>) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Record.class},
          (proxy, method, args) -> method.getName().equals("getValue") ? value : invoke(current, method, args));
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
      try {
        return method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }

    /** The protocol's value interface (e.g. VariableRecordValue) an immutable value implements. */
    private static Class<?> valueInterface(Class<?> type) {
      for (Class<?> candidate : type.getInterfaces()) {
        if (RecordValue.class.isAssignableFrom(candidate) && candidate != RecordValue.class) {
          return candidate;
        }
      }
      throw new IllegalArgumentException("no record value interface on " + type);
    }
  }
}
