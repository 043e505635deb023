package io.unibench.sim;

/**
 * A snapshot of the simulator's counters. A "stream" is any in-flight generation, streamed or not.
 *
 * @param requestsReceived      requests to {@code /v1/chat/completions} and {@code /v1/completions}, valid or not
 * @param streamsActive         generations accepted and not yet answered, failed or cancelled (queued ones included)
 * @param streamsCancelled      generations stopped because the client closed the connection
 * @param promptTokensTotal     prompt tokens of requests admitted to the engine
 * @param cachedTokensTotal     of those, tokens served from the prefix cache
 * @param generationTokensTotal output tokens the engine produced (a cancelled stream counts what it produced)
 * @param running               requests in the engine's running batch after the last step
 * @param waiting               requests waiting for a slot (including those still in the API overhead)
 * @param rejected              requests the scheduler refused (queue full, waited too long, too long for the model)
 * @param engineSteps           engine steps run
 * @param lastDecodeStepNanos   modelled duration of the last step that decoded (0 before the first)
 */
public record SimStats(long requestsReceived, long streamsActive, long streamsCancelled,
                       long promptTokensTotal, long cachedTokensTotal, long generationTokensTotal,
                       long running, long waiting, long rejected, long engineSteps, long lastDecodeStepNanos) {
}
