package dev.tandem.devstack.api;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An HTTP request as the API server's router sees it: {@code
 * /api[s/<group>]/<version>[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]} plus query.
 */
final class ApiRequest {
  final String method;
  final String path;
  final Map<String, List<String>> query;
  final String contentType;
  final String userAgent;
  final String body;

  // Route pieces; group is "" for the core group. resource is null for discovery paths.
  final boolean apiPath;
  final String group;
  final String version;
  final String namespace;
  final String resource;
  final String name;
  final String subresource;

  ApiRequest(String method, String rawPath, String contentType, String userAgent, String body) {
    this.method = method.toUpperCase(Locale.ROOT);
    int q = rawPath.indexOf('?');
    this.path = q < 0 ? rawPath : rawPath.substring(0, q);
    this.query = parseQuery(q < 0 ? "" : rawPath.substring(q + 1));
    this.contentType = contentType;
    this.userAgent = userAgent;
    this.body = body;

    List<String> segs = new ArrayList<>();
    for (String s : path.split("/")) {
      if (!s.isEmpty()) {
        segs.add(URLDecoder.decode(s, StandardCharsets.UTF_8));
      }
    }
    int rest;
    if (segs.size() >= 2 && segs.get(0).equals("api")) {
      group = "";
      version = segs.get(1);
      rest = 2;
    } else if (segs.size() >= 3 && segs.get(0).equals("apis")) {
      group = segs.get(1);
      version = segs.get(2);
      rest = 3;
    } else {
      group = null;
      version = null;
      rest = -1;
    }
    apiPath = rest > 0;
    List<String> r = rest > 0 ? segs.subList(rest, segs.size()) : List.of();
    String ns = null;
    if (r.size() >= 3
        && r.get(0).equals("namespaces")
        && !r.get(2).equals("status")
        && !r.get(2).equals("finalize")) {
      ns = r.get(1);
      r = r.subList(2, r.size());
    }
    namespace = ns;
    resource = r.size() >= 1 ? r.get(0) : null;
    name = r.size() >= 2 ? r.get(1) : null;
    subresource = r.size() >= 3 ? r.get(2) : null;
    if (r.size() > 3) {
      throw ApiException.noSuchResource(path);
    }
  }

  private static Map<String, List<String>> parseQuery(String q) {
    Map<String, List<String>> m = new LinkedHashMap<>();
    if (q.isEmpty()) {
      return m;
    }
    for (String pair : q.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      m.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
    }
    return m;
  }

  /** The first value of a query parameter, or null. */
  String param(String key) {
    List<String> v = query.get(key);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  boolean flag(String key) {
    return "true".equalsIgnoreCase(param(key)) || "1".equals(param(key));
  }

  boolean isWatch() {
    return "GET".equals(method) && flag("watch");
  }

  /** {@code dryRun=All}: run every check, persist nothing (the only value the API accepts). */
  boolean dryRun() {
    String d = param("dryRun");
    if (d == null) {
      return false;
    }
    if (!d.equals("All")) {
      throw ApiException.badRequest(
          "Invalid value: \"" + d + "\": supported values: \"All\" (dryRun)");
    }
    return true;
  }

  /** The media subtype, e.g. {@code merge-patch+json}; null without a Content-Type header. */
  String mediaSubtype() {
    if (contentType == null) {
      return null;
    }
    String ct = contentType.split(";")[0].trim().toLowerCase(Locale.ROOT);
    int slash = ct.indexOf('/');
    return slash < 0 ? ct : ct.substring(slash + 1);
  }

  @Override
  public String toString() {
    return method + " " + path + (query.isEmpty() ? "" : " " + query);
  }
}
