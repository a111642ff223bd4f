package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.Names;

/** A NodeSet custom resource by namespace and name. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeSetRef(String namespace, String name) {
  public String workflowId() {
    return Names.nodeSetWorkflowId(namespace, name);
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
