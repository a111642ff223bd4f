package dev.tandem.workflows.support;

import dev.tandem.workflows.Names;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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
  private final boolean batched;
  private final Map<String, String> last = new HashMap<>();
  private final Map<String, SearchAttributeUpdate<String>> pending = new LinkedHashMap<>();

  public SearchAttributes(boolean enabled) {
    this(enabled, false);
  }

  /**
   * @param batched hold the changes until {@link #flush}, which upserts them all in one command
   *     (one history event, and on a real server one visibility write, instead of one per value): a
   *     workflow's commands reach the server only when its task completes, so values set and
   *     replaced within one task would never be visible anyway
   */
  public SearchAttributes(boolean enabled, boolean batched) {
    this.enabled = enabled;
    this.batched = batched;
  }

  /** Sets {@code key} to {@code value} if it differs from what was last set by this run. */
  public void set(SearchAttributeKey<String> key, String value) {
    if (!enabled || value == null || Objects.equals(last.get(key.getName()), value)) {
      return;
    }
    last.put(key.getName(), value);
    if (batched) {
      pending.put(key.getName(), key.valueSet(value));
    } else {
      Workflow.upsertTypedSearchAttributes(key.valueSet(value));
    }
  }

  /**
   * Batched: upserts what changed since the last flush, if anything, in one command. Call it where
   * the workflow waits or ends. Not batched: nothing to do.
   */
  public void flush() {
    if (pending.isEmpty()) {
      return;
    }
    List<SearchAttributeUpdate<?>> updates = new ArrayList<>(pending.values());
    pending.clear();
    Workflow.upsertTypedSearchAttributes(updates.toArray(new SearchAttributeUpdate<?>[0]));
  }
}
