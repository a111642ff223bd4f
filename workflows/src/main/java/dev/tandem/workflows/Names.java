package dev.tandem.workflows;

/**
 * The names users script against (docs/architecture.md, "Names"). Changing any of these breaks
 * users and running workflows: add, never rename.
 */
public final class Names {
  private Names() {}

  /** The one task queue every Tandem worker polls. */
  public static final String TASK_QUEUE = "tandem";

  /** Prefix of labels and annotations. */
  public static final String PREFIX = "tandem.dev/";

  /** Scheduler name that routes pods through Slurm. */
  public static final String SCHEDULER_NAME = "tandem-slurm";

  /**
   * The component Tandem's Kubernetes events name as their source and reporting component ({@code
   * tandem history} finds a deleted pod's uid by it).
   */
  public static final String EVENT_COMPONENT = "tandem";

  // Workflow types (the names visibility queries filter on: WorkflowType = 'NodeSet').
  public static final String TYPE_NODESET = "NodeSet";
  public static final String TYPE_NODE = "NodeLifecycle";
  public static final String TYPE_POD_SCHEDULE = "PodSchedule";
  public static final String TYPE_POD_GROUP = "PodGroup";
  public static final String TYPE_REMEDIATION = "Remediation";
  public static final String TYPE_REMEDIATION_BUDGET = "RemediationBudget";

  // Search attributes (Keyword) shown in the Temporal UI.
  public static final String SA_NODESET = "TandemNodeSet";
  public static final String SA_NODE = "TandemNode";
  public static final String SA_K8S_NODE = "TandemK8sNode";
  public static final String SA_PHASE = "TandemPhase";
  public static final String SA_POD = "TandemPod";
  public static final String SA_JOB_ID = "TandemJobId";
  public static final String SA_REMEDIATION_STEP = "TandemRemediationStep";

  // Signals: the public control surface.
  public static final String SIGNAL_DRAIN = "drain";
  public static final String SIGNAL_UNDRAIN = "undrain";
  public static final String SIGNAL_DELETE = "delete";
  public static final String SIGNAL_UPDATE = "update";
  public static final String SIGNAL_SPEC_CHANGED = "specChanged";
  public static final String SIGNAL_POD_OBSERVED = "podObserved";
  public static final String SIGNAL_SLURM_OBSERVED = "slurmObserved";
  public static final String SIGNAL_JOB_OBSERVED = "jobObserved";
  public static final String SIGNAL_NODE_REPORTED = "nodeReported";
  public static final String SIGNAL_RESYNC = "resync";
  public static final String SIGNAL_CLUSTER_HEALTH = "clusterHealth";
  public static final String SIGNAL_MEMBER_OBSERVED = "memberObserved";

  /** To {@code remediation/<k8s-node>}: a trigger (watcher or operator) starts or joins it. */
  public static final String SIGNAL_TRIGGER = "trigger";

  /** To {@code remediation/<k8s-node>}: a watcher saw the node change; re-check now. */
  public static final String SIGNAL_RECHECK = "recheck";

  /** To {@code remediation/<k8s-node>}: the budget granted its slot. */
  public static final String SIGNAL_SLOT_GRANTED = "slotGranted";

  /** To {@link #REMEDIATION_BUDGET_ID}: a node asks for a remediation slot. */
  public static final String SIGNAL_ACQUIRE = "acquire";

  /** To {@link #REMEDIATION_BUDGET_ID}: a node gives its slot (or its place in line) back. */
  public static final String SIGNAL_RELEASE = "release";

  /**
   * To {@code nodeset/<ns>/<name>}: the budget holds back automatic drains of its nodes (a mass
   * fault), or no longer does.
   */
  public static final String SIGNAL_DRAINS_HELD = "drainsHeld";

  /**
   * To {@code nodeset/<ns>/<name>} of an autoscaled NodeSet: what Slurm's queue asks of it
   * (docs/nodeset.md, "Autoscaling").
   */
  public static final String SIGNAL_DEMAND_OBSERVED = "demandObserved";

  /** The one workflow that grants remediation slots within the budgets (docs/remediation.md). */
  public static final String REMEDIATION_BUDGET_ID = "remediation-budget";

  /** Node annotation: a reboot was asked for, value = the request token (docs/remediation.md). */
  public static final String ANNOTATION_REBOOT_REQUESTED = PREFIX + "reboot-requested";

  /** Node annotation a node agent sets to the token of the reboot it carried out. */
  public static final String ANNOTATION_REBOOTED = PREFIX + "rebooted";

  /** Node annotation: Tandem asks the provider to replace this node; value = the reason. */
  public static final String ANNOTATION_REPLACE_REQUESTED = PREFIX + "replace-requested";

  // Queries.
  public static final String QUERY_STATUS = "status";

  /** {@code nodeset/<ns>/<name>} */
  public static String nodeSetWorkflowId(String namespace, String name) {
    return "nodeset/" + namespace + "/" + name;
  }

  /** {@code node/<ns>/<pod>} */
  public static String nodeWorkflowId(String namespace, String pod) {
    return "node/" + namespace + "/" + pod;
  }

  /** {@code schedule/<ns>/<pod>/<uid>} */
  public static String scheduleWorkflowId(String namespace, String pod, String uid) {
    return "schedule/" + namespace + "/" + pod + "/" + uid;
  }

  /**
   * {@code schedule-group/<ns>/<group>}: the one workflow of a gang (pods sharing annotation {@code
   * tandem.dev/pod-group}); derivable from any member alone, so every member reaches it.
   */
  public static String podGroupWorkflowId(String namespace, String group) {
    return "schedule-group/" + namespace + "/" + group;
  }

  /**
   * {@code <ns>.<group>}: the key of a gang in the pod watcher's index; its jobs' tags start with
   * it (see {@link #podGroupJobTag}). A namespace and a group are DNS labels (no dots) and a uid
   * has no dot, so a tag with a dot is always a gang's.
   */
  public static String podGroupTag(String namespace, String group) {
    return namespace + "." + group;
  }

  /**
   * {@code <ns>.<group>.<incarnation>}: the tag of a gang's placeholder job (where a single pod's
   * job carries the pod uid). The incarnation (taken from the members' uids) tells a gang from an
   * earlier one of the same name, whose ended job Slurm still lists for {@code MinJobAge}: a
   * re-created gang must never find that job and take it for its own.
   */
  public static String podGroupJobTag(String namespace, String group, String incarnation) {
    return podGroupTag(namespace, group) + "." + incarnation;
  }

  /** {@code remediation/<k8s-node>} */
  public static String remediationWorkflowId(String k8sNode) {
    return "remediation/" + k8sNode;
  }

  /** The pod (and Slurm node) name of a NodeSet ordinal: {@code <nodeset>-<ordinal>}. */
  public static String podName(String nodeSet, int ordinal) {
    return nodeSet + "-" + ordinal;
  }
}
