package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.client.ApiFormat;
import io.unibench.workload.InputOnlyDatasets;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which flags and datasets each {@code --api} can take. A generation flag whose API has no body field for it is
 * refused (one line naming the flag), never dropped: the Responses API has no {@code stop}, {@code top_k},
 * {@code min_tokens} or evalscope's optional sampling fields; Anthropic's Messages API takes {@code stop}
 * (as {@code stop_sequences}) and {@code top_k} but none of the others; embeddings and rerank take no generation
 * flag at all. {@code --seed} is not sent to those APIs (none has the field) but still seeds the client's draws.
 */
final class ApiFlags {
    private ApiFlags() {}

    static void check(PerfOptions o, ApiFormat format) {
        Map<String, Boolean> given = new LinkedHashMap<>();
        given.put("--min-tokens", o.minTokens != null);
        given.put("--frequency-penalty", o.frequencyPenalty != null);
        given.put("--repetition-penalty", o.repetitionPenalty != null);
        given.put("--logprobs", o.logprobs);
        given.put("--n-choices", o.nChoices != null);
        given.put("--stop-token-ids", o.stopTokenIds != null && !o.stopTokenIds.isEmpty());
        given.put("--stop", o.stop != null && !o.stop.isEmpty());
        given.put("--top-k", o.topK != null);
        given.put("--top-p", o.topP != null);
        given.put("--max-tokens", o.maxTokens != null);
        given.forEach((flag, set) -> {
            if (set && !accepts(format, flag)) {
                throw new BadInputException(flag + ": --api " + o.api + " (" + format.label() + ") has no such field"
                        + (format.generates() ? "; send it with --extra-args if your server takes it" : ": it generates nothing"));
            }
        });
        if (!format.generates() && o.multiTurn) {
            throw new BadInputException("--multi-turn: --api " + o.api + " has no conversation (it generates nothing)");
        }
    }

    private static boolean accepts(ApiFormat format, String flag) {
        return switch (format) {
            case CHAT, COMPLETIONS -> true;
            case RESPONSES -> flag.equals("--top-p") || flag.equals("--max-tokens");
            case ANTHROPIC -> flag.equals("--top-p") || flag.equals("--max-tokens") || flag.equals("--stop")
                    || flag.equals("--top-k");
            case EMBEDDING, RERANK -> false;
        };
    }

    /** Without --dataset: random prompts of the API's kind. */
    static String defaultDataset(ApiFormat format) {
        return switch (format) {
            case EMBEDDING -> InputOnlyDatasets.RANDOM_EMBEDDING;
            case RERANK -> InputOnlyDatasets.RANDOM_RERANK;
            default -> "random";
        };
    }

    /** Rerank needs query/documents datasets; embedding and rerank datasets need their API. */
    static void checkDataset(PerfOptions o, ApiFormat format, String dataset) {
        if (format == ApiFormat.RERANK && !InputOnlyDatasets.isRerank(dataset)) {
            throw new BadInputException("--dataset " + dataset + ": --api " + o.api + " needs query and documents: "
                    + "--dataset rerank (a file) or random_rerank");
        }
        if (InputOnlyDatasets.isRerank(dataset) && format != ApiFormat.RERANK) {
            throw new BadInputException("--dataset " + dataset + ": rerank requests need --api openai_rerank");
        }
        if (InputOnlyDatasets.isEmbedding(dataset) && format != ApiFormat.EMBEDDING) {
            throw new BadInputException("--dataset " + dataset + ": embedding inputs need --api openai_embedding");
        }
    }
}
