package io.unibench.engine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.client.ClientResult;
import io.unibench.client.ErrorClass;
import io.unibench.engine.spec.RunSpec;

import java.util.regex.Pattern;

/**
 * A workload's {@code validate} rules ({@link RunSpec.Validate}: a scenario's) applied to successful replies. A reply that breaks one becomes a failed request
 * of class {@code validation_error} (not {@code business_error}: the server did not signal anything, the benchmark
 * judged the answer), with the rule in its message; timings and token counts are kept in the record.
 */
final class ResponseRules {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RunSpec.Validate rules;
    private final Pattern contentRegex;

    /** @param rules null: none */
    ResponseRules(RunSpec.Validate rules) {
        this.rules = rules;
        this.contentRegex = rules == null || rules.contentRegex() == null ? null : Pattern.compile(rules.contentRegex());
    }

    ClientResult check(ClientResult r) {
        if (rules == null) return r;
        if (!r.success() || !rules.any()) return r;
        String failure = firstFailure(r);
        return failure == null ? r : r.asFailure(ErrorClass.VALIDATION_ERROR, failure);
    }

    private String firstFailure(ClientResult r) {
        if (rules.choicesNonEmpty() && r.generatedText().isEmpty()) {
            return "choices_non_empty: the reply has no content";
        }
        if (contentRegex != null && !contentRegex.matcher(r.content()).find()) {
            return "content_regex: content does not match " + contentRegex.pattern();
        }
        if (rules.jsonOutput()) {
            String text = stripFence(r.content().strip());
            try {
                JSON.readTree(text);
                if (text.isEmpty()) return "json_output: the content is empty";
            } catch (JsonProcessingException e) {
                return "json_output: content is not JSON (" + e.getOriginalMessage() + ")";
            }
        }
        if (rules.minOutputTokens() != null && r.usage() != null && r.usage().completionTokens() >= 0
                && r.usage().completionTokens() < rules.minOutputTokens()) {
            return "min_output_tokens: " + r.usage().completionTokens() + " < " + rules.minOutputTokens();
        }
        return null;
    }

    /** Models often wrap JSON in a Markdown fence: {@code ```json … ```} is accepted around the value. */
    static String stripFence(String s) {
        if (!s.startsWith("```") || !s.endsWith("```") || s.length() < 6) return s;
        int firstLine = s.indexOf('\n');
        if (firstLine < 0) return s;
        return s.substring(firstLine + 1, s.length() - 3).strip();
    }

    /** The hooks around each request of a workload: {@code gate} before it starts (null: none), these rules after. */
    RequestHooks around(StartGate gate) {
        if (gate == null && rules == null) return RequestHooks.NONE;
        return new RequestHooks() {
            @Override
            public boolean awaitStart() {
                return gate == null || gate.awaitStart();
            }

            @Override
            public ClientResult check(ClientResult result) {
                return ResponseRules.this.check(result);
            }
        };
    }
}
