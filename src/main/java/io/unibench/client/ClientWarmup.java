package io.unibench.client;

import io.netty.util.NetUtil;
import io.unibench.net.ServerCertificate;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Runs the client's own request path a bounded number of times before a target's first point, against a
 * {@link WarmupResponder} on 127.0.0.1 inside this process, never against the target. A JVM interprets a method
 * until it has run a few hundred times (C1's threshold); a point of 140 requests at concurrency 1 would otherwise
 * measure its requests' connection set-up, write, response framing and chunk parsing while they are still
 * interpreted (TTFT p50 +0.2–0.4 ms, bench/HISTORY.md, "client warm-up"). The warm-up requests run on the client's
 * own event loops (a {@link LlmClient#sibling}), with the run's request body, half of them on new connections, sent
 * from a virtual thread as a point's workers send; each result is handed to the caller's consumer (the engine's
 * per-request path, into sinks of its own) and then dropped: nothing of them reaches a report but the line
 * {@link Result#line()}. For an https target
 * they run over TLS, with the target client's TLS engine, ALPN offer, SNI name and host-name check, to a responder
 * presenting a certificate made for this warm-up (for the target's host name, its key never leaves the process) that
 * the sibling alone trusts: the handshake and the TLS handler are compiled before the first point too.
 *
 * <p>Then it waits for the JIT to go quiet, and runs more passes until one compiles nothing new ({@link #settle}).
 * Sending requests is not enough to get their code compiled: the compiler's thresholds grow with its queue (HotSpot's
 * load feedback: ~5× while the start-up compiles are queued), so much of a 600-request warm-up's path ran a few hundred
 * times and was still interpreted, and was compiled only while the first ~30 measured requests ran, beside them
 * (bench/HISTORY.md, "warm31"). A pass after the queue drained gets it queued at normal thresholds.
 */
public final class ClientWarmup {

    /**
     * At most {@code requests} requests, none started after {@code limit}.
     *
     * @param requests how many (C1 compiles a method after ~200 calls; half of the requests open a connection)
     * @param limit    the longest it may take (a slow machine stops early: the run goes on, less warm)
     */
    public record Budget(int requests, Duration limit, Duration settle) {
        /** What a short run at concurrency 1 needed on the 2-vCPU bench machine (bench/HISTORY.md). */
        public static final Budget DEFAULT = new Budget(600, Duration.ofSeconds(1), Duration.ofSeconds(1));

        /**
         * @param settle the longest it waits, after its requests, for the JIT to go quiet (and runs more passes of
         *               {@link #SETTLE_PASS} requests); zero: it does not wait
         */
        public Budget {
            if (requests < 0 || limit.isNegative() || settle.isNegative()) {
                throw new IllegalArgumentException("warm-up budget must not be negative: " + requests + ", " + limit
                        + ", " + settle);
            }
        }

        /** No wait for the JIT. */
        public Budget(int requests, Duration limit) {
            this(requests, limit, Duration.ZERO);
        }
    }

    /** Requests of each pass after the first: methods run once per request are looked at every 32 calls. */
    static final int SETTLE_PASS = 100;
    /** At most this many passes after the first. */
    static final int MAX_SETTLE_PASSES = 3;
    /** The JIT is quiet when its compile time has not grown for this long. */
    static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** How often the compile time is read while waiting. */
    static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** What the warm-up reads of the JVM and how it waits (tests inject their own: no real time passes). */
    interface Jvm {
        /** {@link System#nanoTime()}. */
        long nanoTime();

        /** Milliseconds the JIT has spent compiling so far; -1 when this JVM does not say. */
        long compileMillis();

        /** Waits about {@code nanos}. */
        void pause(long nanos) throws InterruptedException;

        Jvm REAL = new Jvm() {
            private final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();

            @Override public long nanoTime() {
                return System.nanoTime();
            }

            @Override public long compileMillis() {
                return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
            }

            @Override public void pause(long nanos) throws InterruptedException {
                TimeUnit.NANOSECONDS.sleep(nanos);
            }
        };
    }

    /**
     * What the warm-up did.
     *
     * @param requests   requests sent to the loopback responder (all of them; none to the target)
     * @param failure    why a request failed (the warm-up then stopped: a bug, reported in the line); {@code null}
     *                   when none did
     * @param nanos      how long it took (the certificate's making included)
     * @param limited    it stopped at its time limit before its count
     * @param handshakes TLS handshakes the responder completed; -1 over plain http (an https target's warm-up)
     * @param settled    how the wait for the JIT ended: {@link Settled#NONE} when there was none
     */
    public record Result(int requests, String failure, long nanos, boolean limited, int handshakes, Settled settled) {
        /** Whether a request failed. */
        public boolean failed() {
            return failure != null;
        }

        /** The line the run prints: what ran, how long, where. */
        public String line() {
            return "client warm-up: " + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms, " + requests + " requests"
                    + (handshakes >= 0 ? " over TLS (" + handshakes + " handshakes)" : "")
                    + " to an in-process loopback responder, none to the target"
                    + (limited ? " (stopped at its time limit)" : "")
                    + (failure != null ? " (stopped: " + failure + ")" : "")
                    + settled.words()
                    + "; --no-client-warmup skips it";
        }
    }

    /**
     * How the wait for the JIT ended.
     *
     * @param passes passes after the first
     * @param quiet  the JIT was quiet at the end (else the wait's limit ended it, or the JVM does not say)
     * @param nanos  time spent in those passes and waits
     */
    public record Settled(int passes, boolean quiet, long nanos) {
        static final Settled NONE = new Settled(0, true, 0);

        String words() {
            if (this == NONE) return "";
            return ", " + passes + (passes == 1 ? " more pass" : " more passes") + " and "
                    + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms until the JIT "
                    + (quiet ? "was quiet" : "still compiled (stopped at the wait's limit)");
        }
    }

    private ClientWarmup() {}

    /** Warms {@code client}'s path with {@code body} (a request of the run, e.g. its connection test's). */
    public static Result run(LlmClient client, byte[] body, boolean stream, Budget budget) throws InterruptedException {
        return run(client, body, stream, budget, result -> { });
    }

    /**
     * As {@link #run(LlmClient, byte[], boolean, Budget)}, each reply handed to {@code each} too (the engine's
     * per-request path, on throwaway sinks), on the virtual thread that sent it, as a point's worker does.
     */
    public static Result run(LlmClient client, byte[] body, boolean stream, Budget budget, Consumer<ClientResult> each)
            throws InterruptedException {
        return run(client, body, stream, budget, Jvm.REAL, each);
    }

    static Result run(LlmClient client, byte[] body, boolean stream, Budget budget, LongSupplier clock)
            throws InterruptedException {
        return run(client, body, stream, budget, new Jvm() {
            @Override public long nanoTime() {
                return clock.getAsLong();
            }

            @Override public long compileMillis() {
                return -1;
            }

            @Override public void pause(long nanos) {
                throw new AssertionError("no wait without a compile time");
            }
        }, result -> { });
    }

    /** On a virtual thread, as a point's closed loop sends. */
    static Result run(LlmClient client, byte[] body, boolean stream, Budget budget, Jvm jvm,
                      Consumer<ClientResult> each) throws InterruptedException {
        try (ExecutorService thread = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Result> warm = thread.submit(() -> runHere(client, body, stream, budget, jvm, each));
            try {
                return warm.get();
            } catch (InterruptedException e) {
                warm.cancel(true);
                throw e;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) throw r;
                if (e.getCause() instanceof Error r) throw r;
                if (e.getCause() instanceof InterruptedException i) throw i;
                throw new IllegalStateException(e.getCause());
            }
        }
    }

    private static Result runHere(LlmClient client, byte[] body, boolean stream, Budget budget, Jvm jvm,
                                  Consumer<ClientResult> each) throws InterruptedException {
        long start = jvm.nanoTime();
        long limit = budget.limit().toNanos();
        boolean limited = false;
        Settled settled = Settled.NONE;
        String tlsHost = client.tlsHost();
        ServerCertificate certificate = tlsHost == null ? null : ServerCertificate.selfSigned(List.of(nameOf(tlsHost)));
        int handshakes;
        Sender sender;
        try (WarmupResponder responder = new WarmupResponder(client.api(), stream, certificate);
             LlmClient loopback = client.sibling(responder.port(),
                     certificate == null ? null : certificate.chain().get(0))) {
            sender = new Sender(loopback, body, stream, each);
            while (sender.sent < budget.requests()) {
                if (jvm.nanoTime() - start >= limit) {
                    limited = true;
                    break;
                }
                if (!sender.send(1)) break;
            }
            if (sender.failure == null && sender.sent > 0 && budget.settle().isPositive()) {
                Settled passes = settle(jvm, budget.settle().toNanos(), sender);
                if (passes != null) settled = passes;
            }
            handshakes = certificate == null ? -1 : responder.handshakes();
        }
        return new Result(sender.sent, sender.failure, jvm.nanoTime() - start, limited, handshakes, settled);
    }

    /** Sends {@code n} more warm-up requests; false when one failed. */
    @FunctionalInterface
    interface Pass {
        boolean send(int n) throws InterruptedException;
    }

    /** Sends the warm-up's requests one after another and keeps the count, and why the first failure failed. */
    private static final class Sender implements Pass {
        private final LlmClient loopback;
        private final byte[] body;
        private final boolean stream;
        private final Consumer<ClientResult> each;
        int sent;
        String failure;

        Sender(LlmClient loopback, byte[] body, boolean stream, Consumer<ClientResult> each) {
            this.loopback = loopback;
            this.body = body;
            this.stream = stream;
            this.each = each;
        }

        @Override
        public boolean send(int n) throws InterruptedException {
            for (int i = 0; i < n; i++) {
                if (Thread.interrupted()) throw new InterruptedException();
                ClientResult r = loopback.send(body, stream, "unibench-warmup-" + sent).join();
                sent++;
                if (!r.success()) {
                    failure = "request " + sent + " failed: " + r.errorClass().label() + ": " + r.errorMessage();
                    return false;
                }
                each.accept(r);
            }
            return true;
        }
    }

    /**
     * Waits until the JIT has compiled nothing for {@link #QUIET_NANOS}, then runs a pass of {@link #SETTLE_PASS}
     * requests and waits again, until a pass and its wait compiled nothing (at most {@link #MAX_SETTLE_PASSES}
     * passes, at most {@code limitNanos} in all). Returns null when a request failed, {@link Settled#NONE} on a JVM
     * that does not say its compile time.
     */
    static Settled settle(Jvm jvm, long limitNanos, Pass pass) throws InterruptedException {
        long start = jvm.nanoTime();
        long deadline = start + limitNanos;
        if (jvm.compileMillis() < 0) return Settled.NONE; // this JVM does not say: nothing to wait for
        boolean quiet = awaitQuiet(jvm, deadline);
        int passes = 0;
        while (quiet && passes < MAX_SETTLE_PASSES) {
            long before = jvm.compileMillis();
            if (!pass.send(SETTLE_PASS)) return null;
            passes++;
            quiet = awaitQuiet(jvm, deadline);
            if (jvm.compileMillis() == before) break; // that pass compiled nothing: its path is compiled
        }
        return new Settled(passes, quiet, jvm.nanoTime() - start);
    }

    /** True once the compile time stayed the same for {@link #QUIET_NANOS}; false at {@code deadline}. */
    private static boolean awaitQuiet(Jvm jvm, long deadline) throws InterruptedException {
        long last = jvm.compileMillis();
        long since = jvm.nanoTime();
        while (true) {
            long now = jvm.nanoTime();
            if (now - since >= QUIET_NANOS) return true;
            if (now >= deadline) return false;
            jvm.pause(Math.min(POLL_NANOS, deadline - now));
            long c = jvm.compileMillis();
            if (c != last) {
                last = c;
                since = jvm.nanoTime();
            }
        }
    }

    /** The certificate's subject alternative name for a URL's host: an address literal or a DNS name. */
    static String nameOf(String host) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        return (NetUtil.isValidIpV4Address(bare) || NetUtil.isValidIpV6Address(bare) ? "ip:" : "dns:") + bare;
    }
}
