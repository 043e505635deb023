package io.unibench.check;

import io.unibench.client.ClientResult;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * overload-bounded (load): {@code max(2 × limit, limit + 4)} streams at once, above the server's concurrency limit.
 * Each must be served after a bounded wait or refused early with 429/503; none may run into the client's timeout
 * (every request asks for only {@link #MAX_TOKENS} tokens, so one that does waited in a queue too long).
 * A refusal's {@code Retry-After} is read from the refused replies themselves (a separate probe sent after the first
 * refusal raced the served streams' end: on a busy machine it was served and saw none).
 */
final class OverloadCheck implements Check {
    static final int MAX_TOKENS = 64;

    @Override public String id() { return "overload-bounded"; }

    @Override public boolean load() { return true; }

    @Override public Verdict run(Target t) throws InterruptedException {
        int limit = t.concurrencyLimit();
        int n = Math.max(2 * limit, limit + 4);
        List<CompletableFuture<ClientResult>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            futures.add(t.sendAsync(Ask.of(t.model(), Prompts.STORY + " #" + i, MAX_TOKENS), new CompletableFuture<>()));
        }
        List<ClientResult> results = new ArrayList<>();
        for (CompletableFuture<ClientResult> f : futures) results.add(f.join());
        Outcomes o = Outcomes.of(results);
        String retry = o.refused() > 0 ? "; a refusal's Retry-After: " + Outcomes.retryAfter(results).orElse("none") : "";
        String evidence = n + " streams at limit " + limit + ": " + o.describe() + retry;
        if (o.waitedOut() > 0) {
            return Verdict.fail(id(), evidence + ": the wait is not bounded (requests ran until the client gave up "
                    + "after " + t.settings.timeout().toMillis() + " ms)");
        }
        if (!o.otherFailures().isEmpty()) return Verdict.fail(id(), evidence);
        return Verdict.pass(id(), evidence);
    }
}
