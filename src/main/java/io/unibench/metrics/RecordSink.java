package io.unibench.metrics;

/**
 * Receives every measured {@link RequestRecord} of a run as it completes (warmup excluded).
 * Called from many threads at once (the closed loop's workers; the open loop's records come from one recorder
 * thread, in batches); implementations synchronise themselves and must be cheap, since they run on the
 * completion path of requests.
 */
public interface RecordSink extends AutoCloseable {
    void accept(RequestRecord record);

    /** Flushes and releases; called once after the last record. */
    @Override
    default void close() {}
}
