package io.unibench.engine;

import io.unibench.client.ClientResult;
import io.unibench.engine.spec.RunSpec;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * {@code --retry-on 429,503 --max-retries N} ({@link RunSpec.Retry}): a reply of one of the statuses is sent again,
 * at most N times, after a wait: the server's {@code Retry-After} (seconds or an HTTP date) when it sent one, else an
 * exponential back-off ({@code base · 2^k} for the k-th retry), jittered by a seeded draw between half and all of it;
 * never longer than the policy's maximum. A {@code Retry-After} beyond that maximum is not waited for: the refusal
 * is the request's result. A stop (Ctrl-C, a budget) ends a wait at once and the refusal is the result. The record
 * keeps the count of retries and the time waited ({@link ClientResult#withRetries}); its moments are the last
 * attempt's. Off by default: a capacity run counts refusals, it does not hide them.
 *
 * <p>Waits come from a {@link Waiter}, so a test drives them without sleeping; the jitter from a seeded generator,
 * so a run's waits repeat.
 */
public final class Retrier {
    /** Waits {@code nanos} without holding a thread of the caller; the future completes early on a stop. */
    @FunctionalInterface
    public interface Waiter {
        CompletableFuture<Void> after(long nanos);

        /** Real time: a virtual thread waits on the stop signal, so a stop ends every wait at once. */
        static Waiter system(StopSignal stop) {
            return nanos -> {
                CompletableFuture<Void> done = new CompletableFuture<>();
                Thread.ofVirtual().name("unibench-retry-wait").start(() -> {
                    try {
                        stop.awaitUntil(System.nanoTime() + nanos);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        done.complete(null);
                    }
                });
                return done;
            };
        }
    }

    private final RunSpec.Retry policy;
    private final Waiter waiter;
    private final StopSignal stop;
    private final LongSupplier epochMillis; // an HTTP-date Retry-After is relative to the wall clock
    private final ReentrantLock lock = new ReentrantLock();
    private final SplittableRandom random; // guarded by lock

    public Retrier(RunSpec.Retry policy, long seed, Waiter waiter, StopSignal stop, LongSupplier epochMillis) {
        this.policy = policy;
        this.waiter = waiter;
        this.stop = stop;
        this.epochMillis = epochMillis;
        this.random = new SplittableRandom(seed ^ 0x5DEECE66DL);
    }

    /** {@code inner} with this policy around every request; {@code inner} itself when {@code policy} is null. */
    public static Sender around(Sender inner, RunSpec.Retry policy, long seed, StopSignal stop) {
        if (policy == null || policy.maxRetries() <= 0 || policy.on().isEmpty()) return inner;
        return new Retrier(policy, seed, Waiter.system(stop), stop, System::currentTimeMillis).wrap(inner);
    }

    public Sender wrap(Sender inner) {
        return (body, stream, id) -> attempt(inner, body, stream, id, 0, 0);
    }

    private CompletableFuture<ClientResult> attempt(Sender inner, byte[] body, boolean stream, String id, int done,
                                                    long waited) {
        return inner.send(body, stream, id).thenCompose(r -> {
            if (done >= policy.maxRetries() || !policy.on().contains(r.httpStatus()) || stop.isStopped()) {
                return CompletableFuture.completedFuture(done == 0 ? r : r.withRetries(done, waited));
            }
            long wait = waitNanos(done, r.retryAfter());
            if (wait < 0) return CompletableFuture.completedFuture(done == 0 ? r : r.withRetries(done, waited));
            return waiter.after(wait).thenCompose(v -> stop.isStopped()
                    ? CompletableFuture.completedFuture(r.withRetries(done, waited + wait))
                    : attempt(inner, body, stream, id, done + 1, waited + wait));
        });
    }

    /**
     * The wait before retry {@code k + 1} (0-based {@code k} retries made so far): the server's advice, or the
     * jittered back-off; -1 when the advice is longer than the policy's maximum (not waited for).
     */
    long waitNanos(int k, String retryAfter) {
        long max = policy.maxDelay().toNanos();
        long advised = retryAfterNanos(retryAfter);
        if (advised > max) return -1;
        if (advised >= 0) return advised;
        double full = Math.min((double) max, policy.baseDelay().toNanos() * Math.pow(2, Math.min(k, 62)));
        double share;
        lock.lock();
        try {
            share = 0.5 + 0.5 * random.nextDouble(); // "equal jitter": half the back-off, plus up to as much again
        } finally {
            lock.unlock();
        }
        return (long) (full * share);
    }

    /** {@code Retry-After} in ns: delta-seconds or an HTTP date; -1 when absent or unreadable. */
    long retryAfterNanos(String value) {
        if (value == null || value.isBlank()) return -1;
        String v = value.trim();
        try {
            double seconds = Double.parseDouble(v);
            return seconds >= 0 && Double.isFinite(seconds) ? (long) (seconds * 1e9) : -1;
        } catch (NumberFormatException notSeconds) {
            try {
                long at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
                return Math.max(0, at - epochMillis.getAsLong()) * 1_000_000;
            } catch (DateTimeParseException notADate) {
                return -1;
            }
        }
    }
}
