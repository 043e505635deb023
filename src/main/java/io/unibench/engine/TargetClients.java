package io.unibench.engine;

import io.unibench.client.LlmClient;
import io.unibench.engine.spec.RunSpec;

import java.util.Map;

/**
 * The session's client of each target: one opened before a target's first point (the front end told, then its
 * connection test), closed after its last (the front end and the run history told how it ended); the one a stop
 * cancels.
 */
final class TargetClients {
    private final RunSpec spec;
    private final Map<String, String> env;
    private final boolean debug;
    private final StopSignal stop;
    private final SessionRunner.Recorder recorder;
    private volatile LlmClient active;

    /** @param env where API keys are read from; @param debug the client logs every request and reply */
    TargetClients(RunSpec spec, Map<String, String> env, boolean debug, StopSignal stop,
                  SessionRunner.Recorder recorder) {
        this.spec = spec;
        this.env = env;
        this.debug = debug;
        this.stop = stop;
        this.recorder = recorder;
    }

    LlmClient open(PointSource front, int target) {
        LlmClient client = new LlmClient(spec.targets().get(target).clientConfig(env, debug));
        active = client;
        if (stop.isStopped()) client.cancelAll();
        front.targetStarted(target, client);
        return client;
    }

    /**
     * {@code early}: the target's points ended before their end (stopped, or a failure); {@code failed}: a failure
     * ended the run (the run history stores it as failed).
     */
    void close(PointSource front, int target, LlmClient client, boolean early, boolean failed) {
        active = null;
        try {
            front.targetFinished(target, early);
            if (failed) recorder.targetFailed(target);
            else recorder.targetFinished(target, early);
        } finally {
            client.close();
        }
    }

    /** A stop: what the open client has in flight is cancelled. */
    void cancelActive() {
        LlmClient c = active;
        if (c != null) c.cancelAll();
    }
}
