package io.unibench.engine;

import io.unibench.BadInputException;
import io.unibench.engine.spec.RunSpec;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Dataset;
import io.unibench.workload.DatasetOptions;
import io.unibench.workload.Datasets;
import io.unibench.workload.FixedPrompt;
import io.unibench.workload.InputOnlyDatasets;
import io.unibench.workload.Prompt;

import java.util.List;

/** Loads the prompts of one point from a spec's workload (its dataset or fixed prompt), at that point's offset. */
final class DatasetLoader {
    private final RunSpec.Workload workload;
    private final boolean chatMessages;
    private final long seed;
    private final Tokenizer tokenizer;

    /** The loader of workload {@code w}'s prompts (as chat messages when its first point's target takes them). */
    DatasetLoader(RunSpec spec, int w, Tokenizer userTokenizer) {
        this.workload = spec.workloads().get(w);
        this.chatMessages = SpecConversations.targetOf(spec, w).api().chatMessages();
        this.seed = spec.seed();
        // random prompts need a tokenizer; without a tokenizer path the bundled default is used
        this.tokenizer = userTokenizer == null && workload.dataset().startsWith("random")
                ? Tokenizers.defaultTokenizer() : userTokenizer;
        if (workload.prompt() == null) {
            Datasets.checkArgs(workload.dataset(), json("--dataset-args", workload.options().args()),
                    "--dataset-args");
        }
    }

    /**
     * The prompts of {@code point}'s {@code count} requests from dataset index {@code offset} (its first): a whole
     * point's or a shard's block, consecutive; a shard's dealt trace rows, every N-th ({@link RunSpec.Slice#pick}).
     */
    List<Prompt> load(long offset, RunSpec.Point point, int count) {
        RunSpec.Slice slice = point.slice();
        if (slice == null || slice.stride() == 1) return load(offset, count);
        return slice.pick(load(offset, (int) slice.span(count)));
    }

    List<Prompt> load(long offset, int count) {
        DatasetOptions opts = new DatasetOptions(workload.datasetPath(), offset, workload.minPromptLength(),
                workload.maxPromptLength(), workload.options().prefixLength(), tokenizer, chatMessages, seed);
        if (workload.prompt() != null) return List.of(FixedPrompt.load(workload.prompt(), opts));
        String name = workload.dataset();
        Dataset dataset = InputOnlyDatasets.NAMES.contains(name) ? InputOnlyDatasets.of(name,
                InputOnlyDatasets.Args.DEFAULTS.with(workload.generation().extraArgs(), "--extra-args")
                        .with(json("--dataset-args", workload.options().args()), "--dataset-args"))
                : Datasets.byName(name);
        return dataset.load(opts, count);
    }

    private static com.fasterxml.jackson.databind.JsonNode json(String flag, String text) {
        if (text == null) return null;
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new BadInputException(flag + ": invalid JSON (" + io.unibench.workload.Json.problem(e) + ")");
        }
    }
}
