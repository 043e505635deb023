package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.schedule.ScheduleService;
import io.unibench.store.RunStore;
import io.unibench.web.DataDirs;
import io.unibench.web.KeyAllowList;
import io.unibench.web.RunLimits;
import io.unibench.web.RunService;
import io.unibench.web.WebConfig;
import io.unibench.web.WebServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code unibench serve}: the run history in a browser and over a REST API, until stopped (Ctrl-C). */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Web UI and REST API: create runs (a queue), watch them live, browse the run history, compare, "
                + "export;",
                "runs the enabled schedules (`unibench schedule`) and delivers their alerts.",
                "Binds loopback unless a token is set; with a token every page and API call needs it."})
public final class ServeCommand implements Callable<Integer> {
    static final String DEFAULT_TOKEN_ENV = "UNIBENCH_TOKEN";

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on. Any address but "
            + "loopback needs a token (--token-env). Default: ${DEFAULT-VALUE}.")
    String host;

    @Option(names = "--port", defaultValue = "8080", description = "TCP port (0: any free port). "
            + "Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(names = "--token-env", paramLabel = "NAME", description = "Environment variable holding the access token "
            + "(API: Authorization: Bearer TOKEN; browser: asked once). Default: " + DEFAULT_TOKEN_ENV
            + " when set, else no token (loopback only).")
    String tokenEnv;

    @Option(names = "--max-concurrent-runs", defaultValue = "1", paramLabel = "N", description = "Runs created in "
            + "the service that execute at once; the others wait in the queue (two benchmarks sharing one client "
            + "machine falsify each other). Default: ${DEFAULT-VALUE}.")
    int maxConcurrentRuns;

    @Option(names = "--allow-key-env", paramLabel = "NAME,…", split = ",", description = "Environment variables a "
            + "run may send as its provider key (api_key_env): names or patterns with *. Default: "
            + KeyAllowList.ENV + " when set, else " + KeyAllowList.DEFAULT + ". The service's own settings "
            + "(UNIBENCH_*, the token's variable) are never sent.")
    java.util.List<String> allowKeyEnv;

    @Option(names = "--allow-channel-env", paramLabel = "NAME,…", split = ",", description = "Environment variables "
            + "a schedule's notify channel may read as its webhook URL or signing secret (url_env, secret_env): names "
            + "or patterns with *. Default: " + KeyAllowList.CHANNEL_ENV + " when set, else "
            + KeyAllowList.CHANNEL_DEFAULT + ". The service's own settings (UNIBENCH_*, the token's variable) are "
            + "never read.")
    java.util.List<String> allowChannelEnv;

    @Option(names = "--max-run-concurrency", defaultValue = "" + RunLimits.DEFAULT_CONCURRENCY, paramLabel = "N",
            description = "Most requests one run may have in flight at once (its largest level). "
                    + "Default: ${DEFAULT-VALUE}.")
    int maxRunConcurrency;

    @Option(names = "--max-run-requests", defaultValue = "" + RunLimits.DEFAULT_REQUESTS, paramLabel = "N",
            description = "Most requests one run may send in all. Default: ${DEFAULT-VALUE}.")
    long maxRunRequests;

    @Option(names = "--max-run-duration", defaultValue = "" + RunLimits.DEFAULT_DURATION_SEC, paramLabel = "SECONDS",
            description = "Longest time one run may hold its levels in all (ramp_interval_sec × levels × …). "
                    + "Default: ${DEFAULT-VALUE}.")
    long maxRunDuration;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "A folder whose files (datasets, @FILE prompts, "
            + "tokenizers, CA certificates) runs created in the service may read; repeatable. Default: the folders of "
            + DataDirs.ENV + " (path-separated) when set, else none; the bundled examples/data always. A document "
            + "naming any other file is refused, symlinks and '..' followed.")
    java.util.List<String> dataDirs;

    @Option(names = "--outputs-dir", defaultValue = "outputs", paramLabel = "DIR", description = "Where the files of "
            + "runs created in the service go: DIR/RUN-ID/ (as `unibench run` writes them). Default: ${DEFAULT-VALUE}.")
    Path outputsDir;

    @Mixin
    StoreOption storeOption;

    @Spec
    CommandSpec spec;

    private Map<String, String> env = System.getenv();

    /** Tests give the environment (the token variable) instead of the process's. */
    ServeCommand withEnvironment(Map<String, String> env) {
        this.env = env;
        return this;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        WebConfig config = new WebConfig(host, port, token(), env.get(ScheduleRunCommand.PUBLIC_URL_ENV));
        if (maxConcurrentRuns < 1) throw new BadInputException("--max-concurrent-runs " + maxConcurrentRuns + ": at least 1");
        try {
            java.nio.file.Files.createDirectories(outputsDir); // a file there would fail every run: refuse it now
        } catch (java.io.IOException e) {
            throw BadInputException.io("--outputs-dir", outputsDir, e);
        }
        KeyAllowList keys = keys();
        KeyAllowList channels = allowList(allowChannelEnv, "--allow-channel-env", KeyAllowList.CHANNEL_ENV,
                KeyAllowList.CHANNEL_DEFAULT);
        RunStore store = storeOption.open(err, false);
        RunLimits limits = new RunLimits(maxRunConcurrency, maxRunRequests, maxRunDuration);
        DataDirs files = DataDirs.of(dataDirs, env.get(DataDirs.ENV), Path.of("").toAbsolutePath());
        RunService service = new RunService(new ScenarioLauncher(keys.filter(env), outputsDir, err), maxConcurrentRuns,
                env, keys, limits, channels, files);
        WebServer server;
        try {
            server = WebServer.start(config, store, store.location(), service, Version.current(), err);
        } catch (RuntimeException e) {
            store.close();
            throw new BadInputException("--host " + host + " --port " + port + ": cannot listen ("
                    + rootMessage(e) + ")");
        }
        ScheduleService schedules = ScheduleService.start(store.location(), server.rounds(), channels.filter(env),
                env.get(ScheduleRunCommand.PUBLIC_URL_ENV), err, channels::allows,
                "serve --allow-channel-env: " + channels);
        server.attach(schedules); // the schedule pages' Run now
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            schedules.close();
            server.close();
            closeQuietly(store);
            stopped.countDown();
        }, "unibench-serve-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        String shown = host.contains(":") ? "[" + host + "]" : host;
        out.println("unibench serve: http://" + shown + ":" + server.port() + "/ (run history: "
                + store.location().display() + (config.token() != null ? "; token required" : "") + "). Ctrl-C stops.");
        out.flush();
        stopped.await();
        return 0;
    }

    /** The flag, else the variable, else the default; the token's variable is never on it. */
    private KeyAllowList keys() {
        return allowList(allowKeyEnv, "--allow-key-env", KeyAllowList.ENV, KeyAllowList.DEFAULT);
    }

    private KeyAllowList allowList(java.util.List<String> flag, String flagName, String variable, String fallback) {
        java.util.Set<String> own = java.util.Set.of(tokenEnv != null ? tokenEnv : DEFAULT_TOKEN_ENV);
        if (flag != null) return KeyAllowList.parse(String.join(",", flag), flagName, own);
        String fromEnv = env.get(variable);
        if (fromEnv != null && !fromEnv.isBlank()) return KeyAllowList.parse(fromEnv, variable, own);
        return KeyAllowList.parse(fallback, "default", own);
    }

    private String token() {
        String name = tokenEnv != null ? tokenEnv : DEFAULT_TOKEN_ENV;
        String value = env.get(name);
        if (tokenEnv != null && (value == null || value.isBlank())) {
            throw new BadInputException("--token-env " + tokenEnv + ": the variable is not set");
        }
        return value;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return String.valueOf(t.getMessage());
    }

    private static void closeQuietly(RunStore store) {
        try {
            store.close();
        } catch (SQLException ignored) {
            // stopping: nothing left to tell
        }
    }
}
