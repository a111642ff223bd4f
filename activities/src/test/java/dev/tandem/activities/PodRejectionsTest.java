package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.activities.KubeActivities;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/** The one line a NodeSet condition shows for Status bodies recorded from kube-apiserver 1.26. */
class PodRejectionsTest {

  static KubernetesClientException recorded(String file) throws IOException {
    try (InputStream in = PodRejectionsTest.class.getResourceAsStream("/statuses/" + file)) {
      Status st = Serialization.unmarshal(in, Status.class);
      return new KubernetesClientException(st);
    }
  }

  @Test
  void strictDecodingErrorNamesTheUnknownField() throws IOException {
    KubernetesClientException e = recorded("pod-strict-unknown-field-400.json");
    assertTrue(PodRejections.invalid(e));
    assertEquals("unknown field \"spec.containers[0].resizePolicy\"", PodRejections.oneLine(e));
  }

  @Test
  void invalidPodListsEachCauseByField() throws IOException {
    KubernetesClientException e = recorded("pod-invalid-422.json");
    assertTrue(PodRejections.invalid(e));
    assertEquals(
        "spec.containers[0].resources.requests: Invalid value: \"4Gi\": must be less than or equal"
            + " to memory limit of 2Gi; spec.containers[0].image: Required value",
        PodRejections.oneLine(e));
  }

  @Test
  void theFailureIsNonRetryableAndOfItsOwnType() throws IOException {
    ApplicationFailure f = PodRejections.failure(recorded("pod-strict-unknown-field-400.json"));
    assertEquals(KubeActivities.POD_REJECTED, f.getType());
    assertTrue(f.isNonRetryable());
    assertFalse(f.getOriginalMessage().contains("\n"));
  }

  @Test
  void aLongOrMultiLineMessageBecomesOneCappedLine() {
    Status st = new Status();
    st.setCode(422);
    st.setMessage("Pod \"x\" is invalid\n" + "x".repeat(500));
    String line = PodRejections.oneLine(new KubernetesClientException(st));
    assertEquals("Pod \"x\" is invalid", line);
    st.setMessage("admission webhook denied: " + "y".repeat(500));
    line = PodRejections.oneLine(new KubernetesClientException(st));
    assertEquals(PodRejections.MAX_LINE, line.length());
    assertTrue(line.endsWith("..."));
  }

  @Test
  void forbiddenIsNotAnInvalidPod() {
    Status st = new Status();
    st.setCode(403);
    assertFalse(PodRejections.invalid(new KubernetesClientException(st)));
  }
}
