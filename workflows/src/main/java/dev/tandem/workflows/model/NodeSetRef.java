package dev.tandem.workflows.model;

import dev.tandem.workflows.Names;

/** A NodeSet custom resource by namespace and name. */
public record NodeSetRef(String namespace, String name) {
  public String workflowId() {
    return Names.nodeSetWorkflowId(namespace, name);
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
