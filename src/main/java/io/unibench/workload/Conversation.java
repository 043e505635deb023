package io.unibench.workload;

import java.util.List;

/**
 * One conversation of a multi-turn dataset: the turns a worker sends one after another, each carrying the whole
 * history so far (the dataset's user messages plus the model's actual replies).
 *
 * @param source where it came from, for messages: {@code file.jsonl:12} or {@code random_multi_turn#3}
 * @param turns  at least one
 */
public record Conversation(String source, List<Turn> turns) {
    public Conversation {
        turns = List.copyOf(turns);
        if (turns.isEmpty()) throw new IllegalArgumentException("a conversation needs at least one turn: " + source);
    }

    public int size() {
        return turns.size();
    }
}
