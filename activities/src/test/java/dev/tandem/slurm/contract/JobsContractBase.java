package dev.tandem.slurm.contract;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * What the job contract suites share: one client of the target for the whole class, and every job a
 * test submits cancelled after it, so each test leaves the cluster as it found it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class JobsContractBase {
  /** The target, once connected. */
  protected SlurmContractTarget slurm;

  /** Its client, once connected. */
  protected SlurmClient client;

  private final List<Long> submitted = new ArrayList<>();

  /** The Slurm this suite runs against. */
  protected abstract SlurmContractTarget target();

  @BeforeAll
  void connect() {
    slurm = target();
    client = slurm.client();
  }

  @AfterAll
  void close() {
    if (client != null) {
      client.close();
    }
  }

  @AfterEach
  void cancelOwnJobs() {
    for (long id : submitted) {
      client.cancel(id, null);
    }
  }

  /** Submits a job this suite cancels after the test. */
  protected long submit(JobSubmission s) {
    long id = client.submit(s);
    submitted.add(id);
    return id;
  }
}
