package io.unibench.engine;

import io.unibench.Moments;
import io.unibench.client.ClientResult;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The closed loop: {@code parallel} workers, each a virtual thread running plain sequential code, share a phase's
 * conversations. Worker {@code w} starts with the {@code w}-th (claimed in worker order before any starts, so the
 * first assignment is deterministic); afterwards whoever finishes first claims the next. A worker sends a turn,
 * waits for its reply, records it and goes on with the conversation's next turn, then with the next conversation.
 * {@code --duration} (the deadline) and a stop end claiming; a stop also ends conversations between turns. The first
 * exception of a worker, sink or hook (a bug) stops them all: nothing new is claimed or sent, each ends its request.
 */
final class ClosedLoop {
    private final Sender client;
    private final StopSignal stop;
    private final RequestHooks hooks;
    private final Clock clock;

    ClosedLoop(Sender client, StopSignal stop, RequestHooks hooks, Clock clock) {
        this.client = client;
        this.stop = stop;
        this.hooks = hooks;
        this.clock = clock;
    }

    /** Runs the phase to its end; returns the conversations claimed. */
    long run(int parallel, Conversations source, List<? extends RecordSink> sinks, long deadline,
             FirstFailure failure) {
        List<Conversations.Conversation> firsts = new ArrayList<>();
        for (int w = 0; w < parallel; w++) {
            Conversations.Conversation first = next(source, w, deadline, failure);
            if (first == null) break;
            firsts.add(first);
        }
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int w = 0; w < firsts.size(); w++) {
                int worker = w;
                Conversations.Conversation first = firsts.get(w);
                threads.submit(() -> work(source, worker, first, sinks, deadline, failure));
            }
        }
        return source.claimed();
    }

    private Conversations.Conversation next(Conversations source, int worker, long deadline, FirstFailure failure) {
        if (failure.any() || stop.isStopped() || clock.nanoTime() >= deadline) return null;
        return source.claim(worker);
    }

    private void work(Conversations source, int worker, Conversations.Conversation first,
                      List<? extends RecordSink> sinks, long deadline, FirstFailure failure) {
        try {
            for (Conversations.Conversation c = first; c != null; c = next(source, worker, deadline, failure)) {
                converse(c, Moments.ABSENT, sinks, failure);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            failure.keep(e);
        }
    }

    /** Sends the conversation's turns in order until its end, a failure or a stop; the first keeps its schedule. */
    void converse(Conversations.Conversation c, long firstScheduled, List<? extends RecordSink> sinks,
                  FirstFailure failure) throws InterruptedException {
        long scheduled = firstScheduled;
        for (PreparedRequest r; !stop.isStopped() && !failure.any() && (r = c.nextTurn()) != null; ) {
            if (!hooks.awaitStart()) return;
            long epochMillis = System.currentTimeMillis();
            ClientResult result = hooks.check(client.send(r.body(), r.stream(), r.requestId()).join());
            RequestRecord record = c.record(r, result, scheduled, epochMillis);
            deliver(record, sinks);
            scheduled = Moments.ABSENT;
        }
    }

    /**
     * Hands the record to every sink, even when one throws (a file that cannot be written must not keep the record
     * from the run history); then throws the first sink's exception, which ends the run.
     */
    static void deliver(RequestRecord record, List<? extends RecordSink> sinks) {
        RuntimeException first = null;
        for (RecordSink sink : sinks) {
            try {
                sink.accept(record);
            } catch (RuntimeException e) {
                if (first == null) first = e;
                else first.addSuppressed(e);
            }
        }
        if (first != null) throw first;
    }
}
