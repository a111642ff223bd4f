package dev.tandem.dev;

/** Small NodeSet manifests for the local stack: benchmarks and end-to-end tests. */
public final class Manifests {
  private Manifests() {}

  /**
   * A NodeSet of {@code replicas} slurmd pods {@code <name>-<ordinal>} (also their Slurm node
   * names: a node pool of the local Slurm for many nodes, any other name runs as one dynamic node,
   * docs/slurm-local.md), rolling updates one at a time, with {@code extraSpec} (YAML indented two
   * spaces, or empty) appended to the spec.
   */
  public static String nodeSet(String name, int replicas, String image, String extraSpec) {
    return "apiVersion: tandem.dev/v1alpha1\nkind: NodeSet\nmetadata:\n  name: "
        + name
        + "\n  namespace: default\nspec:\n  replicas: "
        + replicas
        + "\n  template:\n    spec:\n      containers:\n      - name: slurmd\n        image: "
        + image
        + "\n  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxUnavailable: 1\n"
        + extraSpec;
  }
}
