package io.unibench.sim;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Drives the output of one request with timers on the channel's event loop: no thread per stream, no sleeping.
 * A streamed generation ticks once per token (each tick emits the next token of every unfinished choice, then the
 * next tick is due {@code itl} after the previous tick was DUE, on an absolute cadence: the event loop's timers
 * have millisecond granularity and fire late, and scheduling each tick relative to the last firing would add that
 * lateness to every token, making the simulated ITL drift above its setting); a non-streamed one fires
 * once, when the whole answer would be ready, and emits everything. Confined to its event loop.
 */
final class Generation implements Runnable {
    private final EventExecutor loop;
    private final OutputGenerator.ChoiceOutput[] choices;
    private final OutputGenerator words;
    private final GenerationSink sink;
    private final long interTokenNanos;
    private final boolean tickPerToken;
    private final Runnable onCompleted;
    private ScheduledFuture<?> timer;
    private long nextDueNanos;
    private int ticks;
    private int emitted;
    private boolean ended;

    Generation(EventExecutor loop, OutputGenerator.ChoiceOutput[] choices, OutputGenerator words, GenerationSink sink,
               long interTokenNanos, boolean tickPerToken, Runnable onCompleted) {
        this.loop = loop;
        this.choices = choices;
        this.words = words;
        this.sink = sink;
        this.interTokenNanos = interTokenNanos;
        this.tickPerToken = tickPerToken;
        this.onCompleted = onCompleted;
    }

    /** Schedules the first tick {@code delayNanos} from now (0 = as soon as possible). */
    void start(long delayNanos) {
        nextDueNanos = System.nanoTime() + Math.max(0, delayNanos);
        schedule(Math.max(0, delayNanos));
    }

    /** Stops at once (client gone); returns the tokens emitted so far. Idempotent. */
    int cancel() {
        ended = true;
        if (timer != null) timer.cancel(false);
        return emitted;
    }

    int emitted() { return emitted; }

    @Override public void run() {
        if (ended) return;
        if (tickPerToken) {
            tick();
            if (allFinished()) complete();
            else {
                nextDueNanos += interTokenNanos;
                schedule(Math.max(0, nextDueNanos - System.nanoTime()));
            }
        } else {
            while (!allFinished()) tick();
            complete();
        }
    }

    private void tick() {
        if (ticks++ == 0) sink.firstToken();
        for (int c = 0; c < choices.length; c++) {
            OutputGenerator.ChoiceOutput choice = choices[c];
            if (choice.finished()) continue;
            sink.token(c, words.word(choice.nextWord()));
            emitted++;
            if (choice.finished()) sink.choiceFinished(c, choice.finishReason);
        }
        sink.flush();
    }

    private boolean allFinished() {
        for (OutputGenerator.ChoiceOutput choice : choices) if (!choice.finished()) return false;
        return true;
    }

    private void complete() {
        ended = true;
        onCompleted.run(); // accounting first: counters are current by the time the client reads the last byte
        sink.completed(emitted);
    }

    private void schedule(long delayNanos) {
        try {
            timer = loop.schedule(this, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            ended = true; // the server is shutting down; the channel close cancels the exchange
        }
    }
}
