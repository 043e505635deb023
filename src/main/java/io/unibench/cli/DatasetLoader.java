package io.unibench.cli;

import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Dataset;
import io.unibench.workload.DatasetOptions;
import io.unibench.workload.Datasets;
import io.unibench.workload.FixedPrompt;
import io.unibench.workload.InputOnlyDatasets;
import io.unibench.workload.Prompt;

import java.util.List;

/** Loads the prompts of one sweep run from {@code --dataset}/{@code --prompt}, at that run's offset. */
final class DatasetLoader {
    private final PerfSettings settings;
    private final PerfOptions options;
    private final Tokenizer tokenizer;

    DatasetLoader(PerfSettings settings, PerfOptions options, Tokenizer userTokenizer) {
        this.settings = settings;
        this.options = options;
        // random prompts need a tokenizer; without --tokenizer-path the bundled default is used
        this.tokenizer = userTokenizer == null && settings.dataset().startsWith("random")
                ? Tokenizers.defaultTokenizer() : userTokenizer;
        if (options.prompt == null) {
            Datasets.checkArgs(settings.dataset(), ApiFlags.json("--dataset-args", options.datasetArgs), "--dataset-args");
        }
    }

    List<Prompt> load(long offset, int count) {
        DatasetOptions opts = new DatasetOptions(options.datasetPath, offset, settings.minPromptLength(),
                settings.maxPromptLength(), options.prefixLength, tokenizer,
                settings.format().chatMessages(), settings.seed());
        if (options.prompt != null) return List.of(FixedPrompt.load(options.prompt, opts));
        String name = settings.dataset();
        Dataset dataset = InputOnlyDatasets.NAMES.contains(name)
                ? InputOnlyDatasets.of(name, ApiFlags.inputOnlyArgs(options)) : Datasets.byName(name);
        return dataset.load(opts, count);
    }
}
