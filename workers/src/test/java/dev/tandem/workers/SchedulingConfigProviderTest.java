package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.util.Modules;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.workflows.schedule.PriorityMapping;
import dev.tandem.workflows.schedule.SchedulingConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The worker's {@link SchedulingConfig}: the configured maps with Slurm's KillWait, or the
 * fallback.
 */
class SchedulingConfigProviderTest {
  private static final Map<String, String> ENV =
      Map.of(
          "TANDEM_SCHED_PRIORITY_CLASSES", "high=qos:high",
          "TANDEM_SCHED_KILL_WAIT", "40s",
          "TANDEM_SCHED_DEFAULT_PARTITION", "gpu");

  private static SchedulingConfig provided(SlurmClient slurm) {
    Env env = new Env(ENV);
    return Guice.createInjector(
            Modules.override(new TandemModule(env, TandemConfig.from(env)))
                .with(
                    new AbstractModule() {
                      @Override
                      protected void configure() {
                        bind(SlurmClient.class).toInstance(slurm);
                      }
                    }))
        .getInstance(SchedulingConfig.class);
  }

  @Test
  void slurmsKillWaitWithTheConfiguredMaps() {
    SlurmClient slurm = mock(SlurmClient.class);
    when(slurm.killWait()).thenReturn(Optional.of(Duration.ofSeconds(75)));
    SchedulingConfig c = provided(slurm);
    assertEquals(75, c.killWaitSeconds());
    assertEquals(Map.of("high", new PriorityMapping("high", null)), c.priorityClasses());
    assertEquals("gpu", c.defaultPartition());
    assertEquals(Map.of("nvidia.com/gpu", "gpu"), c.gres());
  }

  @Test
  void theFallbackWhenSlurmCannotSayOrIsUnreachable() {
    SlurmClient silent = mock(SlurmClient.class);
    when(silent.killWait()).thenReturn(Optional.empty());
    assertEquals(40, provided(silent).killWaitSeconds());
    SlurmClient down = mock(SlurmClient.class);
    when(down.killWait()).thenThrow(new IllegalStateException("connection refused"));
    assertEquals(40, provided(down).killWaitSeconds());
  }
}
