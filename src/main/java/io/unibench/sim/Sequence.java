package io.unibench.sim;

/**
 * One request inside the engine: what it must compute (prompt, planned output lengths, fault) and how far it got.
 * Three parties touch it, each through its own fields: the HTTP front creates it and sets {@link #cancelled}; the
 * scheduler thread owns the engine fields and publishes progress through the volatile fields; the channel's event
 * loop reads those and owns the delivery fields ({@link Delivery}).
 */
final class Sequence {
    enum End { NONE, FINISHED, FAULT_FAIL, FAULT_DISCONNECT, QUEUE_TIMEOUT, SHUTDOWN }

    /** The token ids of a choice's first {@code count} reply tokens (the words it sends), for the prefix cache. */
    interface ReplyTokens {
        int[] ids(int choice, int count);
    }

    /** Writes a sequence's progress to its client; called on the sequence's event loop. */
    interface Delivery {
        void deliver(Sequence seq);
    }

    // ---- immutable ----
    final SimRequest request;
    final int[][] promptIds;
    final int promptTokens;
    final int[] lengths;
    final String[] finishReasons;
    final int maxLength;
    final FaultSpec fault;
    final long arrivalNanos;
    /** When the API overhead (ttft) is over and the request may join the waiting queue. */
    final long readyNanos;
    final int width;
    final int kvBlocks;
    final Outbox outbox;
    final Delivery delivery;
    /** Null when the reply's tokens are unknown (then only the prompt is cached). */
    final ReplyTokens replyTokens;

    // ---- from the HTTP front ----
    volatile boolean cancelled;

    // ---- engine (scheduler thread) ----
    /** Arrival order at the engine, set by {@link EngineCore#offer}. */
    long order;
    PrefixCache.Lease[] leases;
    int prefillRemaining;
    int steps;
    long holdUntilNanos;
    long lastTokenNanos;
    int stepPrefill;
    boolean stepDecode;
    boolean admittedByEngine;
    int cachedTokens;
    /** When the engine admitted it (prefill may start) and when its first token was ready: the engine's timings. */
    long admittedNanos;
    long firstTokenReadyNanos;
    /** Set on a normal finish before {@link #end} (whose volatile write publishes it); null otherwise. */
    EngineTimings timings;
    /** Set when queued in an outbox and not yet delivered: the scheduler queues each sequence once. */
    final java.util.concurrent.atomic.AtomicBoolean inOutbox = new java.util.concurrent.atomic.AtomicBoolean();

    // ---- published to the event loop (volatile: written last by the scheduler, read first by the loop) ----
    volatile boolean admitted;
    volatile int publishedSteps;
    volatile End end = End.NONE;
    volatile int publishedCachedTokens;

    Sequence(SimRequest request, int[][] promptIds, int[] lengths, String[] finishReasons, FaultSpec fault, long arrivalNanos,
             long overheadNanos, int blockSize, Outbox outbox, Delivery delivery) {
        this(request, promptIds, lengths, finishReasons, fault, arrivalNanos, overheadNanos, blockSize, outbox, delivery,
                null);
    }

    Sequence(SimRequest request, int[][] promptIds, int[] lengths, String[] finishReasons, FaultSpec fault, long arrivalNanos,
             long overheadNanos, int blockSize, Outbox outbox, Delivery delivery, ReplyTokens replyTokens) {
        this.request = request;
        this.replyTokens = replyTokens;
        this.promptIds = promptIds;
        int p = 0;
        long blocks = 0;
        int max = 0;
        for (int c = 0; c < promptIds.length; c++) {
            p += promptIds[c].length;
            blocks += ((long) promptIds[c].length + lengths[c] + blockSize - 1) / blockSize;
            max = Math.max(max, lengths[c]);
        }
        this.promptTokens = p;
        this.lengths = lengths;
        this.finishReasons = finishReasons;
        int stop = fault.stopAfterChunks();
        this.maxLength = stop >= 0 ? Math.min(max, stop) : max;
        this.fault = fault;
        this.arrivalNanos = arrivalNanos;
        this.readyNanos = arrivalNanos + overheadNanos;
        this.width = promptIds.length;
        this.kvBlocks = (int) Math.min(Integer.MAX_VALUE, blocks);
        this.outbox = outbox;
        this.delivery = delivery;
    }

    /** Tokens choice {@code c} has after {@code steps} steps. */
    int tokensOf(int c, int steps) {
        return Math.min(lengths[c], steps);
    }

    /** Output tokens of all choices after {@code steps} steps. */
    int tokensAfter(int steps) {
        int n = 0;
        for (int len : lengths) n += Math.min(len, steps);
        return n;
    }

    /**
     * How this sequence ends when it reaches {@link #maxLength}: a fail-midstream or disconnect fault strikes after
     * min(after_chunks, reply length) chunks, in place of the normal end, so the configured rate is the rate seen.
     */
    End naturalEnd() {
        if (fault.stopAfterChunks() < 0) return End.FINISHED;
        return fault.is(FaultKind.DISCONNECT) ? End.FAULT_DISCONNECT : End.FAULT_FAIL;
    }
}
