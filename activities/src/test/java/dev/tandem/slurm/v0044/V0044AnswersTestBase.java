package dev.tandem.slurm.v0044;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.spec.OpenApiSpec;
import dev.tandem.slurm.spec.SpecOperations;
import dev.tandem.slurm.testing.FakeSlurmTransport;

/**
 * The v0.0.44 adapter over recorded answers: a transport that checks every request and answer
 * against the v0.0.44 spec, and the client under test.
 */
abstract class V0044AnswersTestBase {
  static final String P = "/slurm/v0.0.44";

  final FakeSlurmTransport fake =
      new FakeSlurmTransport().checkedAgainst(new SpecOperations(OpenApiSpec.load("v0.0.44")));
  final SlurmClient client = new SlurmClientV0044(fake);

  /** The call fails with exactly {@code type}'s kind of Slurm exception. */
  static <T extends SlurmException> T fails(Class<T> type, Runnable call) {
    SlurmException e = assertThrows(SlurmException.class, call::run);
    return assertInstanceOf(type, e, e.toString());
  }
}
