package dev.tandem.workers;

import dev.tandem.workflows.Names;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesResponse;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the namespace knows Tandem's Keyword search attributes before any workflow upserts
 * them (upserting an unregistered attribute fails the workflow task over and over).
 *
 * <ol>
 *   <li>Try to add them (idempotent: "already exists" is fine).
 *   <li>If that is refused (no permission, Temporal Cloud), check whether they exist anyway.
 *   <li>If they still cannot be confirmed, run without search attributes and say how to add them.
 * </ol>
 */
public final class SearchAttributeRegistrar {
  private static final Logger log = LoggerFactory.getLogger(SearchAttributeRegistrar.class);

  static final List<String> NAMES =
      List.of(
          Names.SA_NODESET,
          Names.SA_NODE,
          Names.SA_K8S_NODE,
          Names.SA_PHASE,
          Names.SA_POD,
          Names.SA_JOB_ID,
          Names.SA_REMEDIATION_STEP);

  private SearchAttributeRegistrar() {}

  /** True when the attributes are usable. */
  public static boolean ensure(WorkflowServiceStubs service, String namespace) {
    OperatorServiceStubs op =
        OperatorServiceStubs.newServiceStubs(
            OperatorServiceStubsOptions.newBuilder()
                .setChannel(service.getRawChannel())
                .validateAndBuildWithDefaults());
    try {
      AddSearchAttributesRequest.Builder add =
          AddSearchAttributesRequest.newBuilder().setNamespace(namespace);
      for (String n : NAMES) {
        add.putSearchAttributes(n, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
      }
      op.blockingStub().addSearchAttributes(add.build());
      log.info("registered search attributes {} in namespace {}", NAMES, namespace);
      return true;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.ALREADY_EXISTS) {
        return true;
      }
      try {
        ListSearchAttributesResponse r =
            op.blockingStub()
                .listSearchAttributes(
                    ListSearchAttributesRequest.newBuilder().setNamespace(namespace).build());
        Map<String, IndexedValueType> custom = r.getCustomAttributesMap();
        if (custom.keySet().containsAll(NAMES)) {
          return true;
        }
      } catch (StatusRuntimeException ignored) {
        // fall through to the warning
      }
      log.warn(
          "search attributes {} are not registered in namespace {} and could not be added ({}); "
              + "running without them. Add them with: temporal operator search-attribute create "
              + "--namespace {} --name TandemNodeSet --type Keyword --name TandemNode --type Keyword "
              + "--name TandemK8sNode --type Keyword --name TandemPhase --type Keyword --name TandemPod "
              + "--type Keyword --name TandemJobId --type Keyword",
          NAMES,
          namespace,
          e.getStatus(),
          namespace);
      return false;
    } finally {
      op.shutdown();
    }
  }
}
