package dev.tandem.devstack.api;

import java.util.List;
import java.util.Set;

/**
 * The built-in resources the local API serves: what Tandem and kubectl use. Anything else answers
 * 404 like an API server without that resource (storing unknown kinds would let code pass here that
 * a cluster refuses).
 */
final class BuiltinTypes {
  private BuiltinTypes() {}

  static final Set<String> POD_FIELDS =
      Set.of(
          "spec.nodeName",
          "spec.restartPolicy",
          "spec.schedulerName",
          "spec.serviceAccountName",
          "spec.hostNetwork",
          "status.phase",
          "status.podIP",
          "status.nominatedNodeName");

  static final Set<String> EVENT_FIELDS =
      Set.of(
          "involvedObject.kind",
          "involvedObject.namespace",
          "involvedObject.name",
          "involvedObject.uid",
          "involvedObject.apiVersion",
          "involvedObject.resourceVersion",
          "involvedObject.fieldPath",
          "reason",
          "reportingComponent",
          "source",
          "type");

  static final List<ResourceType> ALL =
      List.of(
          core("namespaces", "namespace", "Namespace", false, List.of("ns"), true)
              .fields(Set.of("status.phase"))
              .build(),
          core("nodes", "node", "Node", false, List.of("no"), true)
              .fields(Set.of("spec.unschedulable"))
              .build(),
          core("pods", "pod", "Pod", true, List.of("po"), true)
              .fields(POD_FIELDS)
              .categories(List.of("all"))
              .build(),
          core("bindings", "binding", "Binding", true, List.of(), false).createOnly().build(),
          core("events", "event", "Event", true, List.of("ev"), false).fields(EVENT_FIELDS).build(),
          core("configmaps", "configmap", "ConfigMap", true, List.of("cm"), false).build(),
          core("secrets", "secret", "Secret", true, List.of(), false)
              .fields(Set.of("type"))
              .build(),
          grouped("coordination.k8s.io", "v1", "leases", "lease", "Lease", true, false).build(),
          grouped("events.k8s.io", "v1", "events", "event", "Event", true, false)
              .shortNames(List.of("ev"))
              .build(),
          grouped(
                  "policy",
                  "v1",
                  "poddisruptionbudgets",
                  "poddisruptionbudget",
                  "PodDisruptionBudget",
                  true,
                  true)
              .shortNames(List.of("pdb"))
              .generation()
              .build(),
          grouped(
                  "scheduling.k8s.io",
                  "v1",
                  "priorityclasses",
                  "priorityclass",
                  "PriorityClass",
                  false,
                  false)
              .shortNames(List.of("pc"))
              .build(),
          grouped(
                  "apiextensions.k8s.io",
                  "v1",
                  "customresourcedefinitions",
                  "customresourcedefinition",
                  "CustomResourceDefinition",
                  false,
                  true)
              .shortNames(List.of("crd", "crds"))
              .generation()
              .build());

  /**
   * Groups served without resources of their own. (policy/v1 serves PodDisruptionBudgets, which the
   * eviction subresource enforces: see {@link DisruptionBudgets}.)
   */
  static final List<String> EXTRA_GROUP_VERSIONS = List.of();

  private static B core(
      String plural,
      String singular,
      String kind,
      boolean namespaced,
      List<String> shortNames,
      boolean status) {
    B b = new B("", "v1", plural, singular, kind, namespaced, status);
    b.shortNames = shortNames;
    return b;
  }

  private static B grouped(
      String group,
      String version,
      String plural,
      String singular,
      String kind,
      boolean namespaced,
      boolean status) {
    return new B(group, version, plural, singular, kind, namespaced, status);
  }

  /** A tiny builder so the table above stays readable. */
  private static final class B {
    final String group;
    final String version;
    final String plural;
    final String singular;
    final String kind;
    final boolean namespaced;
    final boolean status;
    List<String> shortNames = List.of();
    List<String> categories = List.of();
    Set<String> fields = Set.of();
    boolean generation;
    boolean createOnly;

    B(
        String group,
        String version,
        String plural,
        String singular,
        String kind,
        boolean namespaced,
        boolean status) {
      this.group = group;
      this.version = version;
      this.plural = plural;
      this.singular = singular;
      this.kind = kind;
      this.namespaced = namespaced;
      this.status = status;
    }

    B fields(Set<String> f) {
      fields = f;
      return this;
    }

    B categories(List<String> c) {
      categories = c;
      return this;
    }

    B shortNames(List<String> s) {
      shortNames = s;
      return this;
    }

    B generation() {
      generation = true;
      return this;
    }

    B createOnly() {
      createOnly = true;
      return this;
    }

    ResourceType build() {
      return new ResourceType(
          group,
          version,
          plural,
          singular,
          kind,
          namespaced,
          shortNames,
          categories,
          status,
          null,
          fields,
          null,
          false,
          generation,
          true,
          createOnly,
          List.of());
    }
  }
}
