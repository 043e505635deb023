package io.unibench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real signal path: a separate JVM running {@code perf} against its embedded simulator gets SIGTERM
 * (what Ctrl-C's SIGINT also triggers: the JVM's shutdown hooks) and must still write its partial report.
 */
class SignalEndToEndTest {
    @TempDir
    Path out;

    @Test
    void terminatedRunWritesItsPartialReport() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "perf", "--parallel", "4", "--number", "100000", "--max-tokens", "20", "--min-prompt-length", "8",
                "--max-prompt-length", "8", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "s")
                .redirectErrorStream(true).redirectOutput(out.resolve("console.txt").toFile()).start();
        Path jsonl = out.resolve("s/parallel_4_number_100000/requests.jsonl");
        try {
            // wait (at most 60 s) until measured requests are on disk
            for (int i = 0; i < 6000 && lines(jsonl) < 8 && p.isAlive(); i++) LockSupport.parkNanos(10_000_000L);
            assertThat(lines(jsonl)).as("requests recorded before the signal").isGreaterThanOrEqualTo(8);
            p.destroy(); // SIGTERM
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }
        assertThat(out.resolve("s/performance_summary.txt")).exists();
        assertThat(out.resolve("s/parallel_4_number_100000/benchmark_summary.json")).exists();
        List<String> records = Files.readAllLines(jsonl);
        assertThat(records).isNotEmpty().allMatch(r -> r.endsWith("}"));
        assertThat(Files.readString(out.resolve("console.txt"))).contains("Interrupted: the report above is partial");
    }

    private static long lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file).size() : 0;
        } catch (IOException e) {
            return 0;
        }
    }
}
