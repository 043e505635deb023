package io.unibench.client;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.function.Function;

/**
 * Generation parameters sent in every request body (evalscope {@code perf} flags of the same names).
 *
 * @param model        {@code model}; {@code null} = not sent
 * @param format       chat ({@code messages}) or legacy completions ({@code prompt})
 * @param maxTokensMin lower bound of {@code max_tokens}; equal to {@code maxTokensMax} for a fixed value
 * @param maxTokensMax upper bound (inclusive) of {@code max_tokens}
 * @param minTokens    {@code min_tokens} (vLLM extension), or {@code null}
 * @param temperature  {@code temperature}, always sent
 * @param topP         {@code top_p}, or {@code null}
 * @param topK         {@code top_k}, or {@code null}
 * @param seed         {@code seed}, or {@code null}
 * @param stop         {@code stop} strings; {@code null} or empty = not sent
 * @param stream       {@code stream} (and then {@code stream_options.include_usage})
 * @param extraArgs    merged into the body last (overriding); {@code null} = none
 * @param optional     evalscope's optional sampling fields as given ({@code frequency_penalty},
 *                     {@code repetition_penalty}, {@code logprobs}, {@code n}, {@code stop_token_ids}), sent after
 *                     {@code min_tokens}; {@code null} = none
 * @param template     {@code --query-template}: the body every request starts from; the input and the fields
 *                     above replace its keys; {@code null} = none
 * @param promptEncoder {@code --tokenize-prompt}: turns the prompt text into the token ids sent as
 *                     {@code prompt} to {@code /v1/completions} (messages: their contents joined); {@code null} =
 *                     prompts go as text
 */
public record GenerationParams(
        String model,
        ApiFormat format,
        int maxTokensMin,
        int maxTokensMax,
        Integer minTokens,
        double temperature,
        Double topP,
        Integer topK,
        Long seed,
        List<String> stop,
        boolean stream,
        ObjectNode extraArgs,
        ObjectNode optional,
        ObjectNode template,
        Function<String, int[]> promptEncoder) {

    /** Prompts as text. */
    public GenerationParams(String model, ApiFormat format, int maxTokensMin, int maxTokensMax, Integer minTokens,
                            double temperature, Double topP, Integer topK, Long seed, List<String> stop,
                            boolean stream, ObjectNode extraArgs, ObjectNode optional, ObjectNode template) {
        this(model, format, maxTokensMin, maxTokensMax, minTokens, temperature, topP, topK, seed, stop, stream,
                extraArgs, optional, template, null);
    }

    /** Without the optional sampling fields and query template. */
    public GenerationParams(String model, ApiFormat format, int maxTokensMin, int maxTokensMax, Integer minTokens,
                            double temperature, Double topP, Integer topK, Long seed, List<String> stop,
                            boolean stream, ObjectNode extraArgs) {
        this(model, format, maxTokensMin, maxTokensMax, minTokens, temperature, topP, topK, seed, stop, stream,
                extraArgs, null, null);
    }

    public GenerationParams {
        if (format == null) {
            throw new IllegalArgumentException("format must be set");
        }
        if (promptEncoder != null && format != ApiFormat.COMPLETIONS) {
            throw new IllegalArgumentException("token-id prompts go to /v1/completions only, not " + format);
        }
        if (maxTokensMin < 1 || maxTokensMax < maxTokensMin) {
            throw new IllegalArgumentException(
                    "max tokens range [" + maxTokensMin + ", " + maxTokensMax + "] must satisfy 1 <= min <= max");
        }
        stop = stop == null ? List.of() : List.copyOf(stop);
        extraArgs = extraArgs == null ? null : extraArgs.deepCopy();
        optional = optional == null || optional.isEmpty() ? null : optional.deepCopy();
        template = template == null ? null : template.deepCopy();
    }

    /** These parameters for {@code model} (a run's workload sent to each of its targets' models). */
    public GenerationParams withModel(String model) {
        return new GenerationParams(model, format, maxTokensMin, maxTokensMax, minTokens, temperature, topP, topK, seed,
                stop, stream, extraArgs, optional, template, promptEncoder);
    }

    /** These parameters sending prompts as the token ids {@code encoder} gives (legacy completions). */
    public GenerationParams withPromptEncoder(Function<String, int[]> encoder) {
        return new GenerationParams(model, ApiFormat.COMPLETIONS, maxTokensMin, maxTokensMax, minTokens, temperature,
                topP, topK, seed, stop, stream, extraArgs, optional, template, encoder);
    }

    /** A copy of {@link #extraArgs()} (records expose their fields; this keeps the params immutable). */
    @Override
    public ObjectNode extraArgs() {
        return extraArgs == null ? null : extraArgs.deepCopy();
    }

    /** A copy of {@link #optional()}. */
    @Override
    public ObjectNode optional() {
        return optional == null ? null : optional.deepCopy();
    }

    /** A copy of {@link #template()}. */
    @Override
    public ObjectNode template() {
        return template == null ? null : template.deepCopy();
    }
}
