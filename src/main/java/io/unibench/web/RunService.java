package io.unibench.web;

import java.util.Map;

/**
 * What the service needs to run benchmarks, besides the run history.
 *
 * @param launcher          executes a queued run
 * @param maxConcurrentRuns runs executing at once ({@code --max-concurrent-runs}); the others wait in the queue
 * @param environment       the service's environment, where a document's {@code api_key_env} is looked up
 */
public record RunService(RunLauncher launcher, int maxConcurrentRuns, Map<String, String> environment) {
    public RunService {
        environment = Map.copyOf(environment);
    }
}
