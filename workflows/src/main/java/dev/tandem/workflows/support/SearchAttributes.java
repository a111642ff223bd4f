package dev.tandem.workflows.support;

import dev.tandem.workflows.Names;
import io.temporal.common.SearchAttributeKey;
import io.temporal.workflow.Workflow;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Upserts Tandem's Keyword search attributes, only when a value changes (each upsert is a history
 * event). Disabled when the namespace has not registered them: upserting an unregistered attribute
 * fails the workflow task.
 */
public final class SearchAttributes {
  public static final SearchAttributeKey<String> NODESET =
      SearchAttributeKey.forKeyword(Names.SA_NODESET);
  public static final SearchAttributeKey<String> NODE =
      SearchAttributeKey.forKeyword(Names.SA_NODE);
  public static final SearchAttributeKey<String> K8S_NODE =
      SearchAttributeKey.forKeyword(Names.SA_K8S_NODE);
  public static final SearchAttributeKey<String> PHASE =
      SearchAttributeKey.forKeyword(Names.SA_PHASE);

  public static final SearchAttributeKey<String> POD = SearchAttributeKey.forKeyword(Names.SA_POD);
  public static final SearchAttributeKey<String> JOB_ID =
      SearchAttributeKey.forKeyword(Names.SA_JOB_ID);
  public static final SearchAttributeKey<String> REMEDIATION_STEP =
      SearchAttributeKey.forKeyword(Names.SA_REMEDIATION_STEP);

  private final boolean enabled;
  private final Map<String, String> last = new HashMap<>();

  public SearchAttributes(boolean enabled) {
    this.enabled = enabled;
  }

  /** Sets {@code key} to {@code value} if it differs from what was last set by this run. */
  public void set(SearchAttributeKey<String> key, String value) {
    if (!enabled || value == null || Objects.equals(last.get(key.getName()), value)) {
      return;
    }
    last.put(key.getName(), value);
    Workflow.upsertTypedSearchAttributes(key.valueSet(value));
  }
}
