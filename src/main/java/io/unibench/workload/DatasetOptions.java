package io.unibench.workload;

import io.unibench.tokenizer.Tokenizer;

/**
 * What a dataset needs to produce prompts (the dataset flags of {@code evalscope perf}).
 *
 * @param path             {@code --dataset-path}, or {@code null}
 * @param offset           {@code --dataset-offset}: random datasets shift their token offsets by it
 * @param minPromptLength  {@code --min-prompt-length} (tokens with a tokenizer, else characters)
 * @param maxPromptLength  {@code --max-prompt-length} (same unit)
 * @param prefixLength     {@code --prefix-length}: random tokens shared by every prompt of the run
 * @param tokenizer        the tokenizer of {@code --tokenizer-path}, or {@code null}
 * @param chat             true for the chat endpoint (prompts are messages), false for legacy completions (text)
 * @param seed             seed for every random choice; the same seed gives the same prompts
 */
public record DatasetOptions(
        String path,
        long offset,
        int minPromptLength,
        int maxPromptLength,
        int prefixLength,
        Tokenizer tokenizer,
        boolean chat,
        long seed) {}
