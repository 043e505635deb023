package io.unibench.check;

import io.unibench.client.ClientResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * recovery (load): a burst of {@code max(4 × limit, limit + 8)} streams earns refusals (429/503); after the
 * refusal's {@code Retry-After} (1 s when it names none, at most {@link #MAX_RETRY_AFTER}) load resumes gradually,
 * 1, 2, 4, … up to the limit concurrent requests, and every one must succeed. The benchmark client never retries a
 * refused request (it resends only a request whose pooled connection the server had closed, once, before any reply
 * byte), so the server sees no retry storm from it.
 */
final class RecoveryCheck implements Check {
    static final int MAX_TOKENS = 32;
    static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(30);

    @Override public String id() { return "recovery"; }

    @Override public boolean load() { return true; }

    @Override public Verdict run(Target t) throws InterruptedException {
        int limit = t.concurrencyLimit();
        int n = Math.max(4 * limit, limit + 8);
        List<CompletableFuture<ClientResult>> burst = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            burst.add(t.sendAsync(Ask.of(t.model(), Prompts.STORY + " #" + i, MAX_TOKENS), new CompletableFuture<>()));
        }
        List<ClientResult> results = new ArrayList<>();
        for (CompletableFuture<ClientResult> f : burst) results.add(f.join());
        Outcomes o = Outcomes.of(results);
        if (o.refused() == 0) {
            return Verdict.skip(id(), "a burst of " + n + " earned no 429/503 (" + o.describe() + "): nothing to "
                    + "recover from");
        }
        Duration wait = retryAfter(Outcomes.retryAfter(results));
        t.pause(wait);
        StringBuilder levels = new StringBuilder();
        for (int level = 1; ; level = Math.min(limit, level * 2)) {
            List<Ask> asks = new ArrayList<>();
            for (int i = 0; i < level; i++) asks.add(Ask.of(t.model(), Prompts.SHORT + " #" + i, MAX_TOKENS));
            Outcomes step = Outcomes.of(t.burst(asks));
            levels.append(levels.isEmpty() ? "" : ", ").append(level);
            if (step.served() < level) {
                return Verdict.fail(id(), "after a burst of " + n + " (" + o.refused() + " refused) and a " + wait.toMillis()
                        + " ms wait, " + level + " concurrent: " + step.describe() + ": the server does not recover");
            }
            if (level == limit) break;
        }
        return Verdict.pass(id(), "a burst of " + n + " earned " + o.refused() + " refusals; after " + wait.toMillis()
                + " ms, " + levels + " concurrent all succeeded; unibench sent each request once (no client retries)");
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
