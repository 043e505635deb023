package io.unibench.web;

import java.util.Map;

/**
 * What the service needs to run benchmarks, besides the run history.
 *
 * @param launcher          executes a queued run
 * @param maxConcurrentRuns runs executing at once ({@code --max-concurrent-runs}); the others wait in the queue
 * @param environment       the service's environment: a schedule's notify channels name their variables in it
 * @param keys              the variables of it a run may send as its key ({@code api_key_env})
 * @param limits            what one run may ask of the machine
 * @param channels          the variables of it a schedule's notify channel may read ({@code url_env}, {@code secret_env})
 * @param dataDirs          the folders whose files a run may read ({@code --data-dir})
 */
public record RunService(RunLauncher launcher, int maxConcurrentRuns, Map<String, String> environment,
                         KeyAllowList keys, RunLimits limits, KeyAllowList channels, DataDirs dataDirs) {
    public RunService {
        environment = Map.copyOf(environment);
    }

    /** Only the bundled datasets readable. */
    public RunService(RunLauncher launcher, int maxConcurrentRuns, Map<String, String> environment, KeyAllowList keys,
                      RunLimits limits, KeyAllowList channels) {
        this(launcher, maxConcurrentRuns, environment, keys, limits, channels, DataDirs.bundled());
    }

    /** The default channel list. */
    public RunService(RunLauncher launcher, int maxConcurrentRuns, Map<String, String> environment, KeyAllowList keys,
                      RunLimits limits) {
        this(launcher, maxConcurrentRuns, environment, keys, limits, KeyAllowList.channelDefaults(), DataDirs.bundled());
    }

    /** The default key list and limits. */
    public RunService(RunLauncher launcher, int maxConcurrentRuns, Map<String, String> environment) {
        this(launcher, maxConcurrentRuns, environment, KeyAllowList.defaults(), RunLimits.DEFAULTS,
                KeyAllowList.channelDefaults(), DataDirs.bundled());
    }

    /** What a schedule's channels are checked against and read from: only the variables they may read. */
    public Map<String, String> channelEnvironment() {
        return channels.filter(environment);
    }

    /** What a run's document is checked against: only the variables it may send. */
    public Map<String, String> keyEnvironment() {
        return keys.filter(environment);
    }
}
