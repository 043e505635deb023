package io.unibench.sim;

/**
 * A snapshot of the simulator's counters. A "stream" is any in-flight generation, streamed or not.
 *
 * @param requestsReceived      requests to {@code /v1/chat/completions} and {@code /v1/completions}, valid or not
 * @param streamsActive         generations accepted and not yet finished or cancelled
 * @param streamsCancelled      generations stopped because the client closed the connection
 * @param promptTokensTotal     prompt tokens of accepted requests
 * @param cachedTokensTotal     of those, tokens served from the prefix cache
 * @param generationTokensTotal output tokens actually emitted (a cancelled stream counts what it sent)
 */
public record SimStats(long requestsReceived, long streamsActive, long streamsCancelled,
                       long promptTokensTotal, long cachedTokensTotal, long generationTokensTotal) {
}
