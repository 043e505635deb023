package io.unibench.cli;

import io.unibench.store.StoreLocation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The CLI as a process: the run history's default place follows $HOME and $UNIBENCH_HOME, not Java's user.home. */
class HomeEnvironmentTest {
    @TempDir
    Path tmp;

    private int runsList(Map<String, String> env) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "runs", "list").redirectErrorStream(true).redirectOutput(tmp.resolve("console.txt").toFile());
        pb.environment().remove(StoreLocation.ENV); // the suite's own store, set for child JVMs by surefire
        pb.environment().remove(StoreLocation.HOME_ENV);
        pb.environment().putAll(env);
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return p.exitValue();
    }

    @Test
    void homeVariableIsWhereTheRunHistoryGoes() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home"));
        assertThat(runsList(Map.of("HOME", home.toString()))).as(Files.readString(tmp.resolve("console.txt"))).isZero();
        assertThat(home.resolve(".unibench/unibench.db")).exists();
    }

    @Test
    void unibenchHomeWinsOverHome() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path store = tmp.resolve("store");
        assertThat(runsList(Map.of("HOME", home.toString(), StoreLocation.HOME_ENV, store.toString())))
                .as(Files.readString(tmp.resolve("console.txt"))).isZero();
        assertThat(store.resolve("unibench.db")).exists();
        assertThat(home.resolve(".unibench")).doesNotExist();
    }
}
