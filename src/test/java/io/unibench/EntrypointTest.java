package io.unibench;

import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import io.unibench.web.WebConfig;
import io.unibench.web.WebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * docker/entrypoint.sh, run by bash as the image runs it: how the container's environment becomes flags and JVM
 * options, and how bad values end (one line naming the variable, exit 2). {@code UNIBENCH_JAVA} points at a stand-in
 * that prints its arguments (and whether the secret arrived) instead of starting a JVM; the healthcheck asks the real
 * web server on a loopback port.
 */
class EntrypointTest {
    private static final Path SCRIPT = Path.of("docker/entrypoint.sh");
    @TempDir
    Path tmp;

    record Result(int exit, List<String> argv, String err) {}

    private Result run(Map<String, String> env, String... args) throws Exception {
        Path fake = tmp.resolve("java");
        if (!Files.exists(fake)) {
            Files.writeString(fake, "#!/usr/bin/env bash\nfor a in \"$@\"; do echo \"$a\"; done\n"
                    + "echo \"token-set=${UNIBENCH_TOKEN:+yes}\"\necho \"token-file=${UNIBENCH_TOKEN_FILE:-}\"\n");
            Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
        }
        List<String> cmd = new java.util.ArrayList<>(List.of("bash", SCRIPT.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().clear();
        pb.environment().put("PATH", System.getenv("PATH"));
        pb.environment().put("UNIBENCH_JAVA", fake.toString());
        pb.environment().put("UNIBENCH_JAR", "/opt/unibench/unibench.jar");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), out.lines().toList(), err);
    }

    @Test
    void serveGetsThePortFromTheEnvironmentAndTheServerJit() throws Exception {
        Result r = run(Map.of("UNIBENCH_PORT", "9000"), "serve", "--host", "0.0.0.0");
        assertThat(r.exit()).isZero();
        assertThat(r.argv()).startsWith("-XX:MaxRAMPercentage=50", "-jar", "/opt/unibench/unibench.jar", "serve",
                "--host", "0.0.0.0", "--port", "9000").doesNotContain("-XX:TieredStopAtLevel=1");
        // a --port given wins over the variable
        assertThat(run(Map.of("UNIBENCH_PORT", "9000"), "serve", "--port=7000").argv()).doesNotContain("9000");
        // no arguments: the image's default command
        assertThat(run(Map.of()).argv()).containsSubsequence("serve", "--host", "0.0.0.0");
        Result bad = run(Map.of("UNIBENCH_PORT", "80x"), "serve");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).isEqualTo("unibench-entrypoint: UNIBENCH_PORT=80x: not a port number\n");
    }

    @Test
    void theJdksTlsKeepsC2() throws Exception {
        // issue 31: the JDK's SSLEngine under C1 cost 16x plain http (no AES-GCM intrinsic); C1 only with BoringSSL
        Result r = run(Map.of("UNIBENCH_JAVA_OPTS", "-Dunibench.tls=jdk"), "perf", "--number", "100");
        assertThat(r.exit()).isZero();
        assertThat(r.argv()).contains("-XX:CompileThresholdScaling=0.25", "-Dunibench.tls=jdk")
                .doesNotContain("-XX:TieredStopAtLevel=1");
    }

    @Test
    void theJdksTlsNamedInAnotherCaseOrInTheJvmsOwnVariablesKeepsC2Too() throws Exception {
        // TlsProvider reads the property case-insensitively, and the JVM takes flags from JAVA_TOOL_OPTIONS and
        // JDK_JAVA_OPTIONS too: each of these runs the JDK's TLS, so none may be forced to C1 (audit of issue 31)
        for (Map<String, String> env : List.of(Map.of("UNIBENCH_JAVA_OPTS", "-Dunibench.tls=JDK"),
                Map.of("JAVA_TOOL_OPTIONS", "-Dunibench.tls=jdk"), Map.of("JDK_JAVA_OPTIONS", "-Xss1m -Dunibench.tls=Jdk"))) {
            Result r = run(env, "perf", "--number", "100");
            assertThat(r.exit()).isZero();
            assertThat(r.argv()).as(env.toString()).contains("-XX:CompileThresholdScaling=0.25")
                    .doesNotContain("-XX:TieredStopAtLevel=1");
        }
        // and a look-alike property is not the JDK's TLS
        assertThat(run(Map.of("UNIBENCH_JAVA_OPTS", "-Dunibench.tls=jdkx"), "perf").argv()).contains("-XX:TieredStopAtLevel=1");
    }

    @Test
    void anIndexedJobPodBecomesItsShard() throws Exception {
        Map<String, String> env = Map.of("UNIBENCH_SHARDS", "4", "JOB_COMPLETION_INDEX", "2",
                "UNIBENCH_RUN_GROUP", "nightly-7", "UNIBENCH_JAVA_OPTS", "-Xmx1g -Dx=y");
        Result r = run(env, "perf", "--number", "100");
        assertThat(r.exit()).isZero();
        assertThat(r.argv()).containsSubsequence("-XX:MaxRAMPercentage=50", "-XX:TieredStopAtLevel=1", "-Xmx1g", "-Dx=y",
                "-jar", "/opt/unibench/unibench.jar", "perf", "--number", "100", "--shard", "2/4", "--run-group",
                "nightly-7");
        // outside Kubernetes the index comes from UNIBENCH_SHARD_INDEX; an explicit --shard is left alone
        assertThat(run(Map.of("UNIBENCH_SHARDS", "2", "UNIBENCH_SHARD_INDEX", "1", "UNIBENCH_RUN_GROUP", "g"), "perf")
                .argv()).containsSubsequence("--shard", "1/2");
        assertThat(run(env, "perf", "--shard", "0/4", "--run-group", "x").argv()).doesNotContain("2/4", "nightly-7");
        // a scenario file's shard, the same way
        assertThat(run(env, "run", "--config", "/etc/unibench/bench.yaml").argv()).containsSubsequence(
                "-XX:TieredStopAtLevel=1", "-jar", "/opt/unibench/unibench.jar", "run", "--config",
                "/etc/unibench/bench.yaml", "--shard", "2/4", "--run-group", "nightly-7");
        // other commands are never sharded
        assertThat(run(env, "runs", "list").argv()).doesNotContain("--shard");
    }

    @Test
    void badShardEnvironmentIsOneLineNamingTheVariable() throws Exception {
        assertOneLine(run(Map.of("UNIBENCH_SHARDS", "4", "UNIBENCH_RUN_GROUP", "g"), "perf"),
                "UNIBENCH_SHARDS=4 needs JOB_COMPLETION_INDEX (an Indexed Job) or UNIBENCH_SHARD_INDEX");
        assertOneLine(run(Map.of("UNIBENCH_SHARDS", "4", "JOB_COMPLETION_INDEX", "4", "UNIBENCH_RUN_GROUP", "g"), "perf"),
                "shard index 4: must be below UNIBENCH_SHARDS=4");
        assertOneLine(run(Map.of("UNIBENCH_SHARDS", "0", "JOB_COMPLETION_INDEX", "0"), "perf"),
                "UNIBENCH_SHARDS=0: expected a shard count ≥ 1");
        assertOneLine(run(Map.of("UNIBENCH_SHARDS", "2", "JOB_COMPLETION_INDEX", "1"), "perf"),
                "UNIBENCH_SHARDS=2 needs UNIBENCH_RUN_GROUP (or --run-group): the name the shards share");
    }

    @Test
    void secretsComeFromFilesNeverFromTwoPlacesAndAreNotPrinted() throws Exception {
        Path secret = tmp.resolve("token");
        Files.writeString(secret, "s3cret-value\n");
        Result r = run(Map.of("UNIBENCH_TOKEN_FILE", secret.toString()), "serve");
        assertThat(r.exit()).isZero();
        assertThat(r.argv()).contains("token-set=yes", "token-file=").noneMatch(a -> a.contains("s3cret"));
        assertOneLine(run(Map.of("UNIBENCH_TOKEN_FILE", secret.toString(), "UNIBENCH_TOKEN", "x"), "serve"),
                "UNIBENCH_TOKEN and UNIBENCH_TOKEN_FILE are both set; set one of them");
        assertOneLine(run(Map.of("UNIBENCH_DB_PASSWORD_FILE", tmp.resolve("missing").toString()), "serve"),
                "UNIBENCH_DB_PASSWORD_FILE=" + tmp.resolve("missing") + ": not a readable file");
        // a _FILE variable that names no secret is not read
        assertThat(run(Map.of("LOG_FILE", "/nonexistent"), "serve").exit()).isZero();
    }

    @Test
    void healthcheckAsksTheRealServersHealthz() throws Exception {
        try (RunStore store = RunStore.open(StoreLocation.sqlite(tmp.resolve("h.db")))) {
            PrintWriter log = new PrintWriter(new StringWriter());
            WebServer server = WebServer.start(new WebConfig("127.0.0.1", 0, "tok"), store, store.location(),
                    new io.unibench.web.RunService(new io.unibench.cli.ScenarioLauncher(Map.of(), tmp.resolve("out"), log),
                            1, Map.of()), "test", log);
            int port = server.port();
            try {
                assertThat(run(Map.of("UNIBENCH_PORT", Integer.toString(port)), "healthcheck").exit()).isZero();
            } finally {
                server.close();
            }
            // nothing listens there any more
            assertThat(run(Map.of("UNIBENCH_PORT", Integer.toString(port)), "healthcheck").exit()).isEqualTo(1);
        }
    }

    private static void assertOneLine(Result r, String message) {
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("unibench-entrypoint: " + message + "\n");
    }
}
