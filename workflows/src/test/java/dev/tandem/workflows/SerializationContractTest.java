package dev.tandem.workflows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.activities.SchedulingActivities;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.node.NodeLifecycleInput;
import dev.tandem.workflows.node.NodeLifecycleState;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.nodeset.NodeSetInput;
import dev.tandem.workflows.nodeset.NodeSetState;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.schedule.BindRequest;
import dev.tandem.workflows.schedule.GroupMember;
import dev.tandem.workflows.schedule.GroupTimelineEntry;
import dev.tandem.workflows.schedule.PlaceholderJob;
import dev.tandem.workflows.schedule.PodGroupInput;
import dev.tandem.workflows.schedule.PodGroupState;
import dev.tandem.workflows.schedule.PodGroupStatus;
import dev.tandem.workflows.schedule.PodGroupWorkflow;
import dev.tandem.workflows.schedule.PodRequest;
import dev.tandem.workflows.schedule.PodScheduleInput;
import dev.tandem.workflows.schedule.PodScheduleState;
import dev.tandem.workflows.schedule.PodScheduleStatus;
import dev.tandem.workflows.schedule.PodScheduleWorkflow;
import dev.tandem.workflows.schedule.PriorityMapping;
import dev.tandem.workflows.schedule.ScheduleTimelineEntry;
import dev.tandem.workflows.schedule.SchedulingConfig;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every class that crosses Temporal's data converter (workflow and activity arguments and results,
 * signal and query payloads, the state carried across continue-as-new) ignores JSON fields it does
 * not know. Temporal's default Jackson mapper fails on unknown properties, so without this a field
 * added by a newer worker (or kept by an older one) fails the workflow task of every workflow that
 * replays such a payload. See docs/upgrading.md.
 */
class SerializationContractTest {
  private static final String ROOT = "dev.tandem.workflows";
  private static final List<Class<?>> ENTRY_POINTS =
      List.of(
          NodeSetWorkflow.class,
          NodeLifecycleWorkflow.class,
          KubeActivities.class,
          SlurmActivities.class,
          PodScheduleWorkflow.class,
          PodGroupWorkflow.class,
          SchedulingActivities.class);

  /** Classes of ours reachable from the workflow and activity interfaces, through their fields. */
  static Set<Class<?>> serializedClasses() {
    Set<Class<?>> seen = new java.util.LinkedHashSet<>();
    Deque<Type> todo = new ArrayDeque<>();
    for (Class<?> i : ENTRY_POINTS) {
      for (Method m : i.getMethods()) {
        todo.addAll(List.of(m.getGenericParameterTypes()));
        todo.add(m.getGenericReturnType());
      }
    }
    while (!todo.isEmpty()) {
      Type t = todo.pop();
      if (t instanceof ParameterizedType p) {
        todo.add(p.getRawType());
        todo.addAll(List.of(p.getActualTypeArguments()));
      } else if (t instanceof GenericArrayType a) {
        todo.add(a.getGenericComponentType());
      } else if (t instanceof WildcardType w) {
        todo.addAll(List.of(w.getUpperBounds()));
      } else if (t instanceof Class<?> c) {
        if (c.isArray()) {
          todo.add(c.getComponentType());
        } else if (c.getName().startsWith(ROOT + ".") && !c.isEnum() && seen.add(c)) {
          // Temporal's mapper sees every field (visibility ANY), records by their components.
          if (c.isRecord()) {
            for (RecordComponent rc : c.getRecordComponents()) {
              todo.add(rc.getGenericType());
            }
          } else {
            for (Field f : c.getDeclaredFields()) {
              if (!Modifier.isStatic(f.getModifiers()) && !Modifier.isTransient(f.getModifiers())) {
                todo.add(f.getGenericType());
              }
            }
          }
        }
      }
    }
    return seen;
  }

  /** Every record of the model package (plain data meant to travel), found in the build output. */
  static Set<Class<?>> modelRecords() throws IOException, ClassNotFoundException {
    Set<Class<?>> out = new java.util.LinkedHashSet<>();
    Path dir = Path.of("target/classes/dev/tandem/workflows/model");
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
        Class<?> c =
            Class.forName(
                ROOT + ".model." + f.getFileName().toString().replace(".class", ""),
                false,
                SerializationContractTest.class.getClassLoader());
        if (c.isRecord()) {
          out.add(c);
        }
      }
    }
    return out;
  }

  @Test
  void theScanFindsTheStateAndPayloadClasses() throws Exception {
    Set<Class<?>> found = serializedClasses();
    for (Class<?> c :
        List.of(
            NodeSetInput.class,
            NodeSetState.class,
            NodeSetState.Entry.class,
            NodeLifecycleInput.class,
            NodeLifecycleState.class,
            NodeReport.class,
            ClusterHealth.class,
            PodScheduleInput.class,
            PodScheduleState.class,
            PodScheduleState.Ending.class,
            PodRequest.class,
            SchedulingConfig.class,
            PriorityMapping.class,
            PlaceholderJob.class,
            BindRequest.class,
            PodScheduleStatus.class,
            ScheduleTimelineEntry.class,
            PodGroupInput.class,
            PodGroupState.class,
            PodGroupState.Member.class,
            GroupMember.class,
            PodGroupStatus.class,
            PodGroupStatus.MemberStatus.class,
            GroupTimelineEntry.class)) {
      assertTrue(found.contains(c), c + " not found by the scan: " + found);
    }
    assertTrue(modelRecords().size() >= 20, "model records: " + modelRecords());
  }

  @Test
  void everySerializedClassIgnoresUnknownFields() throws Exception {
    Set<Class<?>> all = new java.util.LinkedHashSet<>(serializedClasses());
    all.addAll(modelRecords());
    Set<String> missing = new TreeSet<>();
    for (Class<?> c : all) {
      JsonIgnoreProperties a = c.getAnnotation(JsonIgnoreProperties.class);
      if (a == null || !a.ignoreUnknown()) {
        missing.add(c.getName());
      }
    }
    assertEquals(
        new TreeSet<>(),
        missing,
        "add @JsonIgnoreProperties(ignoreUnknown = true) (see docs/upgrading.md)");
    assertTrue(new ArrayList<>(all).size() > 25);
  }
}
