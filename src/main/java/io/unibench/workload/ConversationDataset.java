package io.unibench.workload;

import java.util.List;

/**
 * A named source of conversations for {@code --multi-turn} ({@code --dataset NAME}).
 * Bad files are a {@link io.unibench.BadInputException} naming the file, line and rule broken; never a silent skip.
 */
public interface ConversationDataset {
    /** The name users pass to {@code --dataset}. */
    String name();

    /**
     * Up to {@code count} conversations in dataset order (fewer when the file has fewer; the runner cycles).
     * Never empty: a dataset with no usable conversation is a {@link io.unibench.BadInputException}.
     */
    List<Conversation> load(MultiTurnOptions options, int count);
}
