package io.unibench.sim;

import java.util.concurrent.atomic.LongAdder;

/** The live counters behind {@link SimStats}; updated from many event loops, hence adders. */
final class SimCounters {
    final LongAdder requestsReceived = new LongAdder();
    final LongAdder streamsActive = new LongAdder();
    final LongAdder streamsCancelled = new LongAdder();
    final LongAdder promptTokens = new LongAdder();
    final LongAdder cachedTokens = new LongAdder();
    final LongAdder generationTokens = new LongAdder();

    SimStats snapshot() {
        return new SimStats(requestsReceived.sum(), streamsActive.sum(), streamsCancelled.sum(),
                promptTokens.sum(), cachedTokens.sum(), generationTokens.sum());
    }
}
