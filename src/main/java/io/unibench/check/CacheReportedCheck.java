package io.unibench.check;

import io.unibench.client.ClientResult;

/**
 * cache-reported: a long prompt sent twice must report {@code usage.prompt_tokens_details.cached_tokens} above zero
 * the second time: prefix caching is on and reported. FAIL when the field is missing (vLLM needs
 * {@code --enable-prompt-tokens-details}, SGLang {@code --enable-cache-report}; llama.cpp reports it by default) or
 * stays 0 on an exact repeat (prefix caching off: vLLM {@code --enable-prefix-caching}); SKIP when the server sends
 * no usage at all (stream-format fails then).
 */
final class CacheReportedCheck implements Check {
    static final int PROMPT_WORDS = 2_048;

    @Override public String id() { return "cache-reported"; }

    @Override public Verdict run(Target t) {
        Ask ask = Ask.of(t.model(), Prompts.longText(PROMPT_WORDS), 1);
        ClientResult first = t.send(ask).result();
        ClientResult second = t.send(ask).result();
        for (ClientResult r : new ClientResult[]{first, second}) {
            if (!r.success()) return Verdict.fail(id(), "request failed: " + r.errorClass() + " " + r.errorMessage());
        }
        if (second.usage() == null) return Verdict.skip(id(), "the server sent no usage: nothing to read cached_tokens from");
        int prompt = second.usage().promptTokens();
        int cached = second.usage().cachedTokens();
        if (cached < 0) {
            return Verdict.fail(id(), "usage has no prompt_tokens_details.cached_tokens (" + prompt + " prompt tokens): "
                    + "not reported (vLLM --enable-prompt-tokens-details, SGLang --enable-cache-report)");
        }
        if (cached == 0) {
            return Verdict.fail(id(), "cached_tokens 0 of " + prompt + " on an exact repeat: prefix caching is off "
                    + "(vLLM --enable-prefix-caching) or the first copy was evicted");
        }
        return Verdict.pass(id(), "repeat of a " + prompt + "-token prompt: cached_tokens " + cached + " ("
                + Math.round(100.0 * cached / prompt) + "%)");
    }
}
