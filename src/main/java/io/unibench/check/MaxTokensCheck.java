package io.unibench.check;

import io.unibench.client.ClientResult;

/** max-tokens: a reply asked for at most {@link #LIMIT} tokens has no more, and says {@code length} when it hit it. */
final class MaxTokensCheck implements Check {
    static final int LIMIT = 8;

    @Override public String id() { return "max-tokens"; }

    @Override public Verdict run(Target t) {
        ClientResult r = t.send(Ask.of(t.model(), Prompts.STORY, LIMIT));
        if (!r.success()) return Verdict.fail(id(), "request failed: " + r.errorClass() + " " + r.errorMessage());
        int tokens = Generated.tokens(r);
        String counted = r.usage() != null ? "usage.completion_tokens " : "token chunks (no usage) ";
        String evidence = counted + tokens + " with max_tokens " + LIMIT + ", finish_reason " + r.finishReason();
        if (tokens > LIMIT) return Verdict.fail(id(), evidence + ": more than asked");
        if (tokens == LIMIT && !"length".equals(r.finishReason())) {
            return Verdict.fail(id(), evidence + ": the limit was reached but finish_reason is not 'length'");
        }
        return Verdict.pass(id(), evidence);
    }
}
