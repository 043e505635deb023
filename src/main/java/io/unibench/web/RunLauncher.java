package io.unibench.web;

import io.unibench.engine.live.EventHub;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.spec.RunSpec;
import io.unibench.scenario.BenchConfig;
import io.unibench.store.StoreLocation;

/**
 * How the service executes a run: the one seam between the platform and the benchmark pipeline, so the service never
 * orchestrates a run itself. {@code unibench serve} wires the same code {@code unibench run --config} runs
 * ({@code cli.ScenarioLauncher} through {@code cli.ScenarioSession}).
 */
public interface RunLauncher {
    /**
     * One run the queue starts.
     *
     * @param runId  the stored run, already {@code running}: its first provider (a spec's first target × workload)
     *               records into it (no new row), each other into a run of its own linked to it; its end is the
     *               queue's to store
     * @param config the validated scenario document; null for a run spec
     * @param spec   the validated run spec ({@code POST /api/runs} with a spec); null for a scenario document
     * @param store  the run history to record into
     * @param events where the run's live events go; the queue publishes the {@link RunFinished} itself once it has
     *               stored the run's end, so a page that reloads on it finds the final status
     * @param cancel stop when it fires; register the runner's stop with {@link Cancellation#onCancel}
     */
    record Launch(String runId, BenchConfig config, RunSpec spec, StoreLocation store, EventHub events,
                  Cancellation cancel) {}

    /**
     * Runs the launch to its end on the calling thread and returns how it ended. A target that cannot be reached or a key that is refused is a {@link io.unibench.BadInputException}
     * (the run is stored as failed with its message).
     */
    RunFinished run(Launch launch) throws Exception;

    /**
     * Sends the document's one-token probe through the real client to its (first) provider, as the run would
     * before its first level: a one-line description of the answer, or a {@link io.unibench.BadInputException}
     * with the reason it failed.
     */
    String testConnection(BenchConfig config) throws InterruptedException;
}
