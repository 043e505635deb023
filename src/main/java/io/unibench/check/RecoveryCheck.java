package io.unibench.check;

import io.unibench.engine.ProbeSession;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * recovery (load): a burst of {@code max(4 × limit, limit + 8)} streams (a closed-loop point) earns refusals
 * (429/503); after the refusal's {@code Retry-After} (1 s when it names none, at most {@link #MAX_RETRY_AFTER}) load
 * resumes gradually, closed-loop points of 1, 2, 4, … up to the limit concurrent requests, and every one must
 * succeed. Each is a probe with its line: the burst, then every level (a level that fails does not hide the next
 * ones); each a point of the check's session, and a level whose verdict says the client was the bottleneck is not
 * failed (SKIP, saying so). The benchmark client never retries a refused request (it resends only a request whose pooled connection
 * the server had closed, once, before any reply byte), so the server sees no retry storm from it.
 */
final class RecoveryCheck implements Check {
    static final int MAX_TOKENS = 32;
    static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(30);

    @Override public String id() { return "recovery"; }

    @Override public boolean load() { return true; }

    @Override public Verdict run(Target t) throws InterruptedException {
        int limit = t.concurrencyLimit();
        int n = Math.max(4 * limit, limit + 8);
        ProbeSession.Point burst = t.burst(id() + "/burst of " + n, Ask.of(t.model(), Prompts.STORY, MAX_TOKENS), n);
        Outcomes o = Outcomes.of(burst);
        if (o.refused() == 0) {
            return Verdict.skip(id(), "a burst of " + n + " earned no 429/503 (" + o.describe() + "): nothing to "
                    + "recover from" + t.limitNote() + Target.clientNote(burst));
        }
        Duration wait = retryAfter(java.util.Optional.ofNullable(burst.retryAfter()));
        List<Verdict.Probe> probes = new ArrayList<>();
        probes.add(new Verdict.Probe("burst of " + n, Verdict.Status.PASS, o.refused() + " refused, then a "
                + wait.toMillis() + " ms wait (Retry-After); unibench sent each request once (no client retries)"));
        t.pause(wait);
        for (int level = 1; ; level = Math.min(limit, level * 2)) {
            String name = level + " concurrent";
            ProbeSession.Point point = t.burst(id() + "/" + name, Ask.of(t.model(), Prompts.SHORT, MAX_TOKENS), level);
            Outcomes step = Outcomes.of(point);
            String client = Target.clientNote(point);
            probes.add(step.served() == level ? new Verdict.Probe(name, Verdict.Status.PASS, "all " + level + " succeeded")
                    : client.isEmpty() ? new Verdict.Probe(name, Verdict.Status.FAIL, step.describe()
                            + ": the server does not recover")
                    : new Verdict.Probe(name, Verdict.Status.SKIP, step.describe() + ": not judged" + client));
            if (level == limit) break;
        }
        return Verdict.ofProbes(id(), probes);
    }

    /** A refusal's Retry-After in seconds when it sent one (at most {@link #MAX_RETRY_AFTER}); else 1 s. */
    static Duration retryAfter(java.util.Optional<String> retryAfter) {
        try {
            long s = Long.parseLong(retryAfter.orElse("1").strip());
            Duration d = Duration.ofSeconds(Math.max(0, s));
            return d.compareTo(MAX_RETRY_AFTER) > 0 ? MAX_RETRY_AFTER : d;
        } catch (NumberFormatException httpDate) {
            return Duration.ofSeconds(1);
        }
    }
}
