package dev.tandem.k8s;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.List;

/**
 * The JSON patch that sets an object's whole finalizer list, conditional on the resourceVersion it
 * was read at: the resourceVersion in the patched object makes the write fail with 409 on any
 * change since (another controller's finalizer among them) instead of overwriting it. Not a {@code
 * test} op: a failed test is a 422, which reads as a refusal.
 */
public final class FinalizerPatch {
  private FinalizerPatch() {}

  /** {@code finalizers} as the object's list, if it is still at {@code resourceVersion}. */
  public static String of(String resourceVersion, List<String> finalizers) {
    ArrayNode patch = JsonNodeFactory.instance.arrayNode();
    patch
        .addObject()
        .put("op", "replace")
        .put("path", "/metadata/resourceVersion")
        .put("value", resourceVersion);
    // "add" sets the member whether or not the object has a list yet.
    ArrayNode list =
        patch.addObject().put("op", "add").put("path", "/metadata/finalizers").putArray("value");
    finalizers.forEach(list::add);
    return patch.toString();
  }
}
