package io.unibench.check;

import io.unibench.client.ClientResult;

import java.util.List;

/**
 * max-tokens: a reply asked for at most {@link #LIMIT} tokens has no more (one probe), and says {@code length} when it
 * hit it (another): each has its line.
 */
final class MaxTokensCheck implements Check {
    static final int LIMIT = 8;

    @Override public String id() { return "max-tokens"; }

    @Override public Verdict run(Target t) {
        ClientResult r = t.send(Ask.of(t.model(), Prompts.STORY, LIMIT)).result();
        if (!r.success()) return Verdict.fail(id(), "request failed: " + r.errorClass() + " " + r.errorMessage());
        int tokens = Generated.tokens(r);
        String counted = r.usage() != null ? "usage.completion_tokens " : "token chunks (no usage) ";
        String evidence = counted + tokens + " with max_tokens " + LIMIT;
        Verdict.Probe bounded = tokens > LIMIT
                ? new Verdict.Probe("at most max_tokens", Verdict.Status.FAIL, evidence + ": more than asked")
                : new Verdict.Probe("at most max_tokens", Verdict.Status.PASS, evidence);
        String finish = "finish_reason " + r.finishReason();
        Verdict.Probe reason = tokens < LIMIT
                ? new Verdict.Probe("finish_reason", Verdict.Status.PASS, finish + " (the limit was not reached)")
                : "length".equals(r.finishReason()) ? new Verdict.Probe("finish_reason", Verdict.Status.PASS, finish)
                : new Verdict.Probe("finish_reason", Verdict.Status.FAIL, finish
                        + ": the limit was reached but finish_reason is not 'length'");
        return Verdict.ofProbes(id(), List.of(bounded, reason));
    }
}
