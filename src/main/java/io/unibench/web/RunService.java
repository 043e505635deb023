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
 */
public record RunService(RunLauncher launcher, int maxConcurrentRuns, Map<String, String> environment,
                         KeyAllowList keys, RunLimits limits) {
    public RunService {
        environment = Map.copyOf(environment);
    }

    /** The default key list and limits. */
    public RunService(RunLauncher launcher, int maxConcurrentRuns, Map<String, String> environment) {
        this(launcher, maxConcurrentRuns, environment, KeyAllowList.defaults(), RunLimits.DEFAULTS);
    }

    /** What a run's document is checked against: only the variables it may send. */
    public Map<String, String> keyEnvironment() {
        return keys.filter(environment);
    }
}
