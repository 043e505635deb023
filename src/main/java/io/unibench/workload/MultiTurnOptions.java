package io.unibench.workload;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What a conversation dataset needs: the single-turn dataset options plus the multi-turn flags.
 *
 * @param base        path, offset, prompt lengths, prefix, tokenizer, seed
 * @param minTurns    {@code --min-turns} (≥ 1): lower bound of turns for generated datasets
 * @param maxTurns    {@code --max-turns}: upper bound for generated datasets, truncation for files; {@code null} = none
 * @param datasetArgs {@code --dataset-args} (with {@code --multi-turn-args} folded in); never null
 */
public record MultiTurnOptions(DatasetOptions base, int minTurns, Integer maxTurns, ObjectNode datasetArgs) {
    public MultiTurnOptions {
        if (minTurns < 1) throw new IllegalArgumentException("minTurns must be >= 1: " + minTurns);
        datasetArgs = datasetArgs == null ? Json.MAPPER.createObjectNode() : datasetArgs.deepCopy();
    }

    /** The turns kept of a conversation of {@code n} turns: all, or the first {@code --max-turns}. */
    int truncate(int n) {
        return maxTurns == null ? n : Math.min(n, maxTurns);
    }
}
