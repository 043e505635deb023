package io.unibench.engine;

import io.unibench.client.ClientResult;
import io.unibench.metrics.RequestRecord;

/**
 * What the load loops ({@link ClosedLoop}, {@link OpenLoop}) carry: conversations, claimed one at a time within a
 * phase's budget. A single-turn request is a conversation of one turn ({@link SingleTurns}); a multi-turn dataset's
 * conversations carry their history from turn to turn ({@link MultiTurns}).
 */
interface Conversations {
    /**
     * The next conversation, or null when the phase's budget is spent. {@code worker} is the closed loop's worker
     * (0 .. parallel−1), −1 in the open loop. Called from many threads at once.
     */
    Conversation claim(int worker);

    /** Conversations claimed so far in this phase (at most the budget). */
    long claimed();

    /**
     * True when every conversation is one turn with nothing before it: the open loop then sends it without a thread
     * of its own and records it on its batch recorder (the single-turn fast path).
     */
    boolean oneTurnEach();

    /** One claimed conversation: its turns, asked for one after the other by one thread. */
    interface Conversation {
        /** Its sequence number in the phase, from 0. */
        long sequence();

        /**
         * Waits what comes before the next turn (the trace's tool call, the think time), then returns its request;
         * null when the conversation has ended (no turn left, the previous one failed, a stop cut a wait short).
         */
        PreparedRequest nextTurn() throws InterruptedException;

        /** The record of the reply to {@code request} (already checked by the run's hooks); the turn is done. */
        RequestRecord record(PreparedRequest request, ClientResult result, long scheduledNanos, long epochMillis);
    }
}
