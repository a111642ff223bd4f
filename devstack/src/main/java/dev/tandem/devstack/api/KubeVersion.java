package dev.tandem.devstack.api;

/**
 * The Kubernetes version the local API emulates: what {@code /version} reports and which pod fields
 * it knows ({@link PodFields}).
 *
 * @param major always 1
 * @param minor e.g. 26 for Kubernetes 1.26
 */
public record KubeVersion(int major, int minor) {
  /** What the local API reports unless told otherwise (kubectl 1.32 is what the machines carry). */
  public static final KubeVersion DEFAULT = new KubeVersion(1, 32);

  public KubeVersion {
    if (major != 1 || minor < 20) {
      throw new IllegalArgumentException(
          "emulated Kubernetes version must be 1.20 or newer, got " + major + "." + minor);
    }
  }

  /** {@code 1.26} or {@code v1.26} (a patch part is ignored). */
  public static KubeVersion parse(String s) {
    String v = s.trim();
    if (v.startsWith("v")) {
      v = v.substring(1);
    }
    String[] parts = v.split("\\.");
    try {
      return new KubeVersion(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a Kubernetes version like 1.26: " + s, e);
    }
  }

  @Override
  public String toString() {
    return major + "." + minor;
  }
}
