package io.unibench.check;

import io.unibench.client.ClientResult;
import io.unibench.engine.ProbeRunner;
import io.unibench.scrape.ServerSample;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * cancellation-propagates (load): {@code min(limit, 8)} long streams are cancelled mid-generation (the client hangs
 * up). From {@code /metrics}, two probes with a line each: the running gauge must fall back to its baseline, and on
 * an idle server the generated-token counter must stop growing, within the settle time (the second is judged even
 * when the first failed). Without {@code /metrics}: {@code limit}
 * streams fill the server, are cancelled, and a new request must get its first token within the settle time
 * (a server that keeps generating for the cancelled ones makes it wait).
 */
final class CancellationCheck implements Check {
    static final int LONG_TOKENS = 1_024;
    /** Streams are cancelled this long after the server shows them running: they are mid-generation. */
    static final java.time.Duration MID_STREAM = java.time.Duration.ofMillis(300);

    @Override public String id() { return "cancellation-propagates"; }

    @Override public boolean load() { return true; }

    @Override public Verdict run(Target t) throws InterruptedException {
        int limit = t.concurrencyLimit();
        return t.hasMetrics() ? withMetrics(t, Math.min(limit, 8)) : withoutMetrics(t, limit);
    }

    private Verdict withMetrics(Target t, int n) throws InterruptedException {
        ServerSample before = t.gauges();
        if (before == null || Double.isNaN(before.running())) return Verdict.skip(id(), "no running-requests gauge");
        double base = before.running();
        CompletableFuture<Void> cancel = new CompletableFuture<>();
        List<CompletableFuture<ProbeRunner.Reply>> streams = start(t, n, cancel);
        List<ServerSample> seen = new ArrayList<>();
        long up = t.awaitGauges(t.settings.settle(), s -> s.running() >= base + n, seen);
        if (up < 0) {
            cancel.complete(null);
            return Verdict.skip(id(), n + " long streams never showed as running (gauge at most "
                    + max(seen) + ", baseline " + fmt(base) + "); " + firstFailure(streams));
        }
        t.pause(MID_STREAM);
        ServerSample atCancel = t.gauges();
        cancel.complete(null);
        streams.forEach(CompletableFuture::join);
        seen.clear();
        long down = t.awaitGauges(t.settings.settle(), s -> s.running() <= base, seen);
        List<Verdict.Probe> probes = new ArrayList<>();
        String running = "running back to baseline";
        probes.add(down < 0
                ? new Verdict.Probe(running, Verdict.Status.FAIL, "running stayed at " + fmt(seen.getLast().running())
                        + " (baseline " + fmt(base) + ") " + t.settings.settle().toMillis() + " ms after cancelling "
                        + n + " streams: the server keeps generating for clients that left")
                : new Verdict.Probe(running, Verdict.Status.PASS, n + " streams cancelled mid-generation; running "
                        + fmt(atCancel == null ? Double.NaN : atCancel.running()) + " → " + fmt(base) + " in "
                        + Target.millis(down) + " ms"));
        String tokens = "generated tokens stop";
        if (base > 0 || Double.isNaN(before.generated())) {
            probes.add(new Verdict.Probe(tokens, Verdict.Status.SKIP, Double.isNaN(before.generated())
                    ? "no generated-token counter" : "the server was not idle (running " + fmt(base) + " before)"));
        } else {
            long stopped = tokensStop(t);
            probes.add(stopped < 0
                    ? new Verdict.Probe(tokens, Verdict.Status.FAIL, "the generated-token counter still grew "
                            + t.settings.settle().toMillis() + " ms after the cancel")
                    : new Verdict.Probe(tokens, Verdict.Status.PASS, "the generated-token counter stopped growing"));
        }
        return Verdict.ofProbes(id(), probes);
    }

    /** Nanoseconds until two gauge readings {@link Target#POLL} × 3 apart show the same generated count; -1 if never. */
    private static long tokensStop(Target t) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + t.settings.settle().toNanos();
        ServerSample prev = t.gauges();
        while (System.nanoTime() < deadline) {
            t.pause(Target.POLL.multipliedBy(3));
            ServerSample now = t.gauges();
            if (prev != null && now != null && now.generated() == prev.generated()) return System.nanoTime() - start;
            prev = now;
        }
        return -1;
    }

    private Verdict withoutMetrics(Target t, int limit) throws InterruptedException {
        CompletableFuture<Void> cancel = new CompletableFuture<>();
        List<CompletableFuture<ProbeRunner.Reply>> streams = start(t, limit, cancel);
        t.pause(MID_STREAM.multipliedBy(3));
        cancel.complete(null);
        for (CompletableFuture<ProbeRunner.Reply> s : streams) {
            ClientResult r = s.join().result();
            if (!r.success() && r.errorClass() != io.unibench.client.ErrorClass.CANCELLED) {
                return Verdict.skip(id(), "the long streams failed before the cancel: " + r.errorClass() + " "
                        + r.errorMessage() + " (" + t.noMetrics() + ")");
            }
        }
        ProbeRunner.Reply reply = t.send(Ask.of(t.model(), Prompts.SHORT, 4));
        ClientResult next = reply.result();
        if (!next.success() || next.firstTokenNanos() == io.unibench.Moments.ABSENT) {
            return Verdict.fail(id(), "after cancelling " + limit + " streams at the limit, a new request failed: "
                    + next.errorClass() + " " + next.errorMessage() + ": the slots were not freed? (" + t.noMetrics() + ")");
        }
        long ttft = Math.round(reply.record().ttftSeconds() * 1e9); // the record's TTFT, as every report's
        String evidence = "after cancelling " + limit + " streams at the limit, a new request's first token took "
                + Target.millis(ttft) + " ms (" + t.noMetrics() + ")";
        if (ttft > t.settings.settle().toNanos()) return Verdict.fail(id(), evidence + ": the slots were not freed");
        return Verdict.pass(id(), evidence);
    }

    /** {@code n} long streams ({@code ignore_eos}; without it when the server refuses the field). */
    private static List<CompletableFuture<ProbeRunner.Reply>> start(Target t, int n, CompletableFuture<Void> cancel) {
        List<CompletableFuture<ProbeRunner.Reply>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Ask ask = Ask.of(t.model(), Prompts.STORY + " #" + i, LONG_TOKENS).ignoringEos();
            out.add(t.sendAsync(ask, cancel).thenCompose(r -> r.result().httpStatus() == 400
                    ? t.sendAsync(Ask.of(ask.model(), ask.prompt(), LONG_TOKENS), cancel)
                    : CompletableFuture.completedFuture(r)));
        }
        return out;
    }

    private static String firstFailure(List<CompletableFuture<ProbeRunner.Reply>> streams) {
        for (CompletableFuture<ProbeRunner.Reply> s : streams) {
            ClientResult r = s.join().result();
            if (!r.success() && r.errorClass() != io.unibench.client.ErrorClass.CANCELLED) {
                return "a stream failed: " + r.errorClass() + " " + r.errorMessage();
            }
        }
        return "the streams ran";
    }

    private static String max(List<ServerSample> seen) {
        return fmt(seen.stream().mapToDouble(ServerSample::running).max().orElse(Double.NaN));
    }

    static String fmt(double v) {
        return Double.isNaN(v) ? "n/a" : v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
