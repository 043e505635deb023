package io.unibench.cli;

import io.unibench.schedule.Round;
import io.unibench.schedule.Schedule;
import io.unibench.schedule.ScheduleService;
import io.unibench.schedule.ScheduleStore;
import io.unibench.schedule.Trigger;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.web.RunService;
import io.unibench.web.WebConfig;
import io.unibench.web.WebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service's scheduler wired as {@code unibench serve} wires it: a due schedule's round becomes a run of the
 * service's queue ({@link WebServer#rounds}), runs in the background against the simulator and is stored as an
 * ordinary run tagged with its schedule and round. Synchronised on the service's log line for the round, not on time.
 */
class ScheduleServiceTest {
    @TempDir
    Path dir;

    @Test
    void aDueRoundRunsInTheBackgroundAndIsStoredTagged() throws Exception {
        StoreLocation location = StoreLocation.sqlite(dir.resolve("unibench.db"));
        CountDownLatch roundLogged = new CountDownLatch(1);
        StringWriter logText = new StringWriter();
        Writer watching = new Writer() {
            @Override
            public void write(char[] b, int off, int len) {
                logText.write(b, off, len);
                if (logText.toString().contains(": round ")) roundLogged.countDown();
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        try (SimServer sim = SimServer.start(SimConfig.defaults().withHost("127.0.0.1").withModel("m").withTtftMs(5))) {
            String doc = """
                    providers:
                      - {name: local, base_url: "%s/v1", model: m}
                    generation: {max_tokens: 4, ignore_eos: true}
                    concurrency: {levels: [1], requests_per_level: 3}
                    scenarios:
                      - {name: chat, type: chat, prompt: hello}
                    """.formatted(sim.baseUrl());
            long stored = System.currentTimeMillis() - Duration.ofSeconds(61).toMillis(); // its first minute has passed
            try (ScheduleStore s = ScheduleStore.open(location)) {
                s.add(new Schedule("every-minute", doc, "every.yaml", Trigger.every(Duration.ofMinutes(1), stored, "--every"),
                        Duration.ZERO, true, null, null, stored, stored));
            }
            PrintWriter log = new PrintWriter(watching, true);
            try (RunStore store = RunStore.open(location);
                 WebServer server = WebServer.start(new WebConfig("127.0.0.1", 0, null), store, location,
                         new RunService(new ScenarioLauncher(Map.of(), dir.resolve("out"), log), 1, Map.of()), "test", log);
                 ScheduleService service = ScheduleService.start(location, server.rounds(), Map.of(), null, log)) {
                assertThat(roundLogged.await(60, TimeUnit.SECONDS)).as(logText.toString()).isTrue();
                List<Round> rounds = service.store().rounds("every-minute", 10);
                assertThat(rounds).singleElement().satisfies(r -> {
                    assertThat(r.status()).as(String.valueOf(r.reason())).isEqualTo(Round.FINISHED);
                    assertThat(r.trigger()).isEqualTo(Round.SCHEDULED);
                    assertThat(r.runIds()).hasSize(1);
                });
                String run = rounds.getFirst().runIds().getFirst();
                assertThat(store.run(run).row().tags())
                        .contains("schedule:every-minute", "round:" + rounds.getFirst().roundId());
                assertThat(store.run(run).row().requestCount()).isEqualTo(3);
                // a run of the service's queue: its files where the service writes every run's
                assertThat(dir.resolve("out").resolve(run).resolve("scenario_summary.txt")).exists();
            }
        }
    }
}
