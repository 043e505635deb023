package io.unibench.engine;

/**
 * Told each time a worker claims a conversation; for progress views and tests of the assignment order.
 * Called while the claim lock is held, so calls arrive in claim order; must be cheap and must not block.
 */
@FunctionalInterface
public interface ClaimListener {
    /**
     * @param warmup       true in the warmup phase
     * @param worker       the worker (0 .. parallel−1); in arrival mode the conversation's slot has no fixed worker
     *                     and this is −1
     * @param sequence     the conversation's number within the phase, from 0 (the budget counter before it was taken)
     * @param datasetIndex which pooled conversation it is (0-based dataset order)
     */
    void claimed(boolean warmup, int worker, long sequence, int datasetIndex);

    ClaimListener NONE = (warmup, worker, sequence, datasetIndex) -> {};
}
