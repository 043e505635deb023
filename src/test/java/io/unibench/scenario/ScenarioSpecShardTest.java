package io.unibench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.engine.Shard;
import io.unibench.engine.spec.RunSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** A scenario file's points as shard I/N runs them: together the N shards are the file's every level, exactly. */
class ScenarioSpecShardTest {
    @TempDir
    Path dir;

    private BenchConfig load(String concurrency) throws Exception {
        Path file = dir.resolve("bench.yaml");
        Files.writeString(file, """
                provider: {name: p, base_url: sim, model: m}
                concurrency: %s
                scenarios:
                  - {name: a, type: chat, prompt: hi, rounds: 23}
                  - {name: b, type: chat, prompt: ho, rounds: 9}
                """.formatted(concurrency));
        return ScenarioFile.load(file, Map.of());
    }

    private static RunSpec spec(BenchConfig c, Shard shard) {
        return ScenarioSpec.of(c, Map.of("p", "http://127.0.0.1:1/v1/chat/completions"), Path.of("out"),
                new RunSpec.History(false, null, List.of()), shard);
    }

    @Test
    void everyLevelsConcurrencyAndRequestsAreSplitWithNothingLostOrTwice() throws Exception {
        BenchConfig c = load("{levels: [5, 7, 12]}");
        RunSpec whole = spec(c, Shard.WHOLE);
        for (int n = 1; n <= 5; n++) {
            int[] parallel = new int[whole.points().size()];
            int[] number = new int[whole.points().size()];
            for (int i = 0; i < n; i++) {
                RunSpec s = spec(c, new Shard(i, n));
                assertThat(s.points()).hasSameSizeAs(whole.points());
                for (int p = 0; p < parallel.length; p++) {
                    parallel[p] += s.points().get(p).plan().parallel();
                    number[p] += s.points().get(p).plan().number();
                    assertThat(s.points().get(p).pauseAfter()).isEqualTo(whole.points().get(p).pauseAfter());
                }
            }
            for (int p = 0; p < parallel.length; p++) {
                assertThat(parallel[p]).as("N=%d point %d", n, p).isEqualTo(whole.points().get(p).plan().parallel());
                assertThat(number[p]).as("N=%d point %d", n, p).isEqualTo(whole.points().get(p).plan().number());
            }
        }
        assertThat(whole.points()).extracting(pt -> pt.plan().number()).containsExactly(23, 23, 23, 9, 9, 9);
    }

    @Test
    void aLevelHeldByTimeKeepsItsHoldOnEveryShard() throws Exception {
        BenchConfig c = load("{levels: [4, 8], ramp_interval_sec: 3}");
        RunSpec s = spec(c, new Shard(1, 4));
        assertThat(s.points()).extracting(pt -> pt.plan().parallel()).containsExactly(1, 2, 1, 2);
        assertThat(s.points()).extracting(pt -> pt.plan().number()).containsOnly(Integer.MAX_VALUE);
        assertThat(s.points()).extracting(pt -> pt.plan().duration().toSeconds()).containsOnly(3L);
    }
}
