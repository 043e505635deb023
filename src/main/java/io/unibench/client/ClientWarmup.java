package io.unibench.client;

import io.netty.util.NetUtil;
import io.unibench.net.ServerCertificate;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Runs the client's own request path a bounded number of times before a target's first point, against a
 * {@link WarmupResponder} on 127.0.0.1 inside this process, never against the target. A JVM interprets a method
 * until it has run a few hundred times (C1's threshold); a point of 140 requests at concurrency 1 would otherwise
 * measure its requests' connection set-up, write, response framing and chunk parsing while they are still
 * interpreted (TTFT p50 +0.2–0.4 ms, bench/HISTORY.md, "client warm-up"). The warm-up requests run on the client's
 * own event loops (a {@link LlmClient#sibling}), with the run's request body, half of them on new connections; their
 * results are dropped and nothing of them reaches a report but the line {@link Result#line()}. For an https target
 * they run over TLS, with the target client's TLS engine, ALPN offer, SNI name and host-name check, to a responder
 * presenting a certificate made for this warm-up (for the target's host name, its key never leaves the process) that
 * the sibling alone trusts: the handshake and the TLS handler are compiled before the first point too.
 */
public final class ClientWarmup {

    /**
     * At most {@code requests} requests, none started after {@code limit}.
     *
     * @param requests how many (C1 compiles a method after ~200 calls; half of the requests open a connection)
     * @param limit    the longest it may take (a slow machine stops early: the run goes on, less warm)
     */
    public record Budget(int requests, Duration limit) {
        /** What a short run at concurrency 1 needed on the 2-vCPU bench machine (bench/HISTORY.md). */
        public static final Budget DEFAULT = new Budget(600, Duration.ofSeconds(1));

        public Budget {
            if (requests < 0 || limit.isNegative()) {
                throw new IllegalArgumentException("warm-up budget must not be negative: " + requests + ", " + limit);
            }
        }
    }

    /**
     * What the warm-up did.
     *
     * @param requests   requests sent to the loopback responder (all of them; none to the target)
     * @param failed     whether one failed (the warm-up then stopped; a bug, reported in the line)
     * @param nanos      how long it took (the certificate's making included)
     * @param limited    it stopped at its time limit before its count
     * @param handshakes TLS handshakes the responder completed; -1 over plain http (an https target's warm-up)
     */
    public record Result(int requests, boolean failed, long nanos, boolean limited, int handshakes) {
        /** The line the run prints: what ran, how long, where. */
        public String line() {
            return "client warm-up: " + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms, " + requests + " requests"
                    + (handshakes >= 0 ? " over TLS (" + handshakes + " handshakes)" : "")
                    + " to an in-process loopback responder, none to the target"
                    + (limited ? " (stopped at its time limit)" : "")
                    + (failed ? " (stopped: a warm-up request failed)" : "")
                    + "; --no-client-warmup skips it";
        }
    }

    private ClientWarmup() {}

    /** Warms {@code client}'s path with {@code body} (a request of the run, e.g. its connection test's). */
    public static Result run(LlmClient client, byte[] body, boolean stream, Budget budget) throws InterruptedException {
        return run(client, body, stream, budget, System::nanoTime);
    }

    static Result run(LlmClient client, byte[] body, boolean stream, Budget budget, LongSupplier clock)
            throws InterruptedException {
        long start = clock.getAsLong();
        long limit = budget.limit().toNanos();
        int sent = 0;
        boolean failed = false;
        boolean limited = false;
        String tlsHost = client.tlsHost();
        ServerCertificate certificate = tlsHost == null ? null : ServerCertificate.selfSigned(List.of(nameOf(tlsHost)));
        int handshakes;
        try (WarmupResponder responder = new WarmupResponder(client.api(), stream, certificate);
             LlmClient loopback = client.sibling(responder.port(),
                     certificate == null ? null : certificate.chain().get(0))) {
            while (sent < budget.requests()) {
                if (clock.getAsLong() - start >= limit) {
                    limited = true;
                    break;
                }
                if (Thread.interrupted()) throw new InterruptedException();
                ClientResult r = loopback.send(body, stream, "unibench-warmup-" + sent).join();
                sent++;
                if (!r.success()) {
                    failed = true;
                    break;
                }
            }
            handshakes = certificate == null ? -1 : responder.handshakes();
        }
        return new Result(sent, failed, clock.getAsLong() - start, limited, handshakes);
    }

    /** The certificate's subject alternative name for a URL's host: an address literal or a DNS name. */
    static String nameOf(String host) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        return (NetUtil.isValidIpV4Address(bare) || NetUtil.isValidIpV6Address(bare) ? "ip:" : "dns:") + bare;
    }
}
