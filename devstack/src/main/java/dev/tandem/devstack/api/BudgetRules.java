package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.ApiException.Cause;
import java.util.List;

/** Validation of policy/v1 PodDisruptionBudgets, as the API server's. */
final class BudgetRules {
  private BudgetRules() {}

  /** The API server's checks of a budget's spec (create). */
  static void validate(ObjectNode pdb, List<Cause> errors) {
    JsonNode spec = pdb.path("spec");
    JsonNode min = spec.get("minAvailable");
    JsonNode max = spec.get("maxUnavailable");
    if (min != null && !min.isNull() && max != null && !max.isNull()) {
      errors.add(
          Cause.invalid(
              "spec", "Invalid value: \"\": minAvailable and maxUnavailable cannot be both set"));
    }
    for (String f : List.of("minAvailable", "maxUnavailable")) {
      JsonNode v = spec.get(f);
      if (v == null || v.isNull()) {
        continue;
      }
      String s = v.asText().trim();
      boolean pct = v.isTextual() && s.matches("\\d+%");
      if (v.isIntegralNumber() ? v.asLong() < 0 : !pct) {
        errors.add(
            Cause.invalid(
                "spec." + f,
                "Invalid value: "
                    + (v.isTextual() ? Json.quote(s) : s)
                    + ": must be a non-negative integer or a percentage"));
      } else if (pct && Long.parseLong(s.substring(0, s.length() - 1)) > 100) {
        errors.add(
            Cause.invalid(
                "spec." + f,
                "Invalid value: " + Json.quote(s) + ": must not be greater than 100%"));
      }
    }
  }
}
