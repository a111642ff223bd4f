package dev.tandem.devstack.api;

import java.util.List;

/** The {@code fieldValidation} query parameter: Strict, Warn (default) or Ignore. */
final class FieldValidation {
  private FieldValidation() {}

  /** The mode asked for, Warn when absent; a 400 for any other value, as the API server. */
  static String mode(ApiRequest req) {
    String mode = req.param("fieldValidation");
    if (mode == null || mode.isEmpty()) {
      return "Warn";
    }
    if (!List.of("Strict", "Warn", "Ignore").contains(mode)) {
      throw ApiException.badRequest(
          "fieldValidation: Unsupported value: "
              + Json.quote(mode)
              + ": supported values: \"Ignore\", \"Strict\", \"Warn\"");
    }
    return mode;
  }
}
