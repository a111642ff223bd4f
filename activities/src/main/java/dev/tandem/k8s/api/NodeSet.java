package dev.tandem.k8s.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A pool of Slurm compute nodes, each one a slurmd pod (docs/architecture.md, flow 1). These
 * classes are the source of truth of the CRD: {@code crd-generator-maven-plugin} turns them into
 * {@code META-INF/fabric8/nodesets.tandem.dev-v1.yml} at build time.
 *
 * <p>Printer columns are declared here rather than on fields because Kubernetes drops its default
 * Age column as soon as a CRD declares any column: Age has to be listed explicitly.
 */
@Group(NodeSet.GROUP)
@Version(NodeSet.VERSION)
@Kind(NodeSet.KIND)
@Plural(NodeSet.PLURAL)
@Singular("nodeset")
@ShortNames("nds")
@Categories("tandem")
@AdditionalPrinterColumn(
    name = "Replicas",
    getDescription = "Desired number of Slurm nodes",
    jsonPath = ".spec.replicas",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Ready",
    getDescription = "Nodes registered with Slurm and in service",
    jsonPath = ".status.readyReplicas",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Updated",
    getDescription = "Nodes running the update revision",
    jsonPath = ".status.updatedReplicas",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Revision",
    getDescription = "Revision of the current template and Slurm settings",
    jsonPath = ".status.updateRevision",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class NodeSet extends CustomResource<NodeSetSpec, NodeSetStatus> implements Namespaced {
  private static final long serialVersionUID = 1L;

  public static final String GROUP = "tandem.dev";
  public static final String VERSION = "v1alpha1";
  public static final String KIND = "NodeSet";
  public static final String PLURAL = "nodesets";
  public static final String API_VERSION = GROUP + "/" + VERSION;
  public static final String CRD_NAME = PLURAL + "." + GROUP;

  /** Where the generated CRD lands on the classpath. */
  public static final String CRD_RESOURCE = "/META-INF/fabric8/" + CRD_NAME + "-v1.yml";

  /** Finalizer that keeps the NodeSet until its nodes are drained and removed. */
  public static final String FINALIZER = "tandem.dev/nodeset-protection";
}
