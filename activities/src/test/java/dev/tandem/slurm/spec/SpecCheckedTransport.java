package dev.tandem.slurm.spec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.SlurmTransport;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link SlurmTransport} that holds both sides of every exchange to an OpenAPI spec: the request
 * must be one the spec declares (as {@link SpecOperations#requestProblems}), and the answer must be
 * one slurmrestd could give. A problem is an {@link AssertionError}, which adapters do not catch.
 *
 * <p>Answers: a 304 has no body; an answer whose {@code errors} is non-empty may omit the success
 * keys (slurmrestd skips the data dump on failure), so it validates against the operation's schema
 * or against {@code openapi_resp}, as the error fixtures do (FixturesMatchSpecTest); any other body
 * validates against the operation's schema for its status. Used to keep a simulated slurmrestd
 * honest in the contract suite.
 */
public final class SpecCheckedTransport implements SlurmTransport {
  private final SlurmTransport delegate;
  private final SpecOperations ops;

  public SpecCheckedTransport(SlurmTransport delegate, SpecOperations ops) {
    this.delegate = delegate;
    this.ops = ops;
  }

  @Override
  public Response send(Request request) {
    List<String> problems = ops.requestProblems(request);
    if (!problems.isEmpty()) {
      throw new AssertionError("request does not match " + ops.spec().version() + ": " + problems);
    }
    Response r = delegate.send(request);
    problems = responseProblems(request, r);
    if (!problems.isEmpty()) {
      throw new AssertionError(
          request.method()
              + " "
              + request.path()
              + " answered "
              + r.status()
              + " with a body that does not match "
              + ops.spec().version()
              + ": "
              + problems);
    }
    return r;
  }

  /** Everything wrong with {@code r} as the answer to {@code request}; empty when it is fine. */
  public List<String> responseProblems(Request request, Response r) {
    boolean empty = r.body() == null || r.body().isBlank();
    if (r.status() == 304 || empty) {
      return r.status() == 304 && !empty ? List.of("a 304 carries no body") : List.of();
    }
    JsonNode body;
    try {
      body = SpecOperations.parse(r.body());
    } catch (RuntimeException e) {
      return List.of("not JSON: " + e.getMessage());
    }
    List<String> asOp = ops.responseProblems(request, r.status(), r.body());
    if (asOp.isEmpty() || body.path("errors").isEmpty()) {
      return asOp;
    }
    String generic = ops.spec().version() + "_openapi_resp";
    List<String> asError = ops.spec().responseProblems(generic, body);
    if (asError.isEmpty()) {
      return asError;
    }
    List<String> all = new ArrayList<>(asOp);
    all.addAll(asError);
    return all;
  }

  @Override
  public void close() {
    delegate.close();
  }
}
