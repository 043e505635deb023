package io.unibench.workload;

import io.unibench.BadInputException;

import java.util.List;

/** {@code --dataset custom}: a text file, one prompt per non-blank line (stripped), length-filtered. */
public final class CustomDataset implements Dataset {
    public static final String NAME = "custom";

    @Override public String name() { return NAME; }

    @Override public List<Prompt> load(DatasetOptions options, int count) {
        String path = requirePath(NAME, options, "a text file with one prompt per line");
        LengthFilter filter = LengthFilter.of(options);
        return PromptFileReader.read(path, count, filter,
                (lineNumber, line, keep) -> PromptFileReader.filteredText(line.strip(), filter, options.chat(), keep));
    }

    static String requirePath(String dataset, DatasetOptions options, String what) {
        if (options.path() == null || options.path().isBlank()) {
            throw new BadInputException("--dataset " + dataset + " needs --dataset-path: " + what);
        }
        return options.path();
    }
}
