package io.unibench.workload;

import java.util.List;

/**
 * A named source of single-turn prompts ({@code --dataset NAME}).
 * Bad files are a {@link io.unibench.BadInputException} naming the file, line and field.
 */
public interface Dataset {
    /** The name users pass to {@code --dataset}. */
    String name();

    /**
     * Up to {@code count} prompts in dataset order (fewer when the file has fewer; the engine cycles).
     * Never empty: a dataset with no usable prompt is a {@link io.unibench.BadInputException}.
     */
    List<Prompt> load(DatasetOptions options, int count);

    /**
     * {@code size} prompts (or other elements) made from their index when asked for, which the engine prepares ahead
     * of the requests ({@link #synthesizedOnDemand}); {@code element} must be pure and thread-safe.
     */
    static <T> List<T> onDemand(int size, java.util.function.IntFunction<? extends T> element, String description) {
        return GeneratedList.of(size, element, description);
    }

    /** True for a list that synthesizes each prompt when asked for (worth preparing ahead of the requests). */
    static boolean synthesizedOnDemand(List<?> prompts) {
        return prompts instanceof GeneratedList;
    }
}
