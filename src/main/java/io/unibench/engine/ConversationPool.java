package io.unibench.engine;

import io.unibench.workload.Conversation;

import java.util.List;

/**
 * The preloaded conversations of a run, handed out in dataset order and cycled from the start when exhausted
 * (evalscope: {@code pool[conv_index % len]}). The cursor continues across the warmup and measured phases, so the
 * measured phase does not start by replaying the warmup's conversations. Thread-safe.
 */
public final class ConversationPool {
    private final List<Conversation> conversations;
    private long cursor;

    public ConversationPool(List<Conversation> conversations) {
        if (conversations.isEmpty()) throw new IllegalArgumentException("no conversations");
        this.conversations = conversations; // not copied: lazy datasets synthesize each conversation on get()
    }

    public int size() {
        return conversations.size();
    }

    /** The dataset index of the next conversation to hand out; advances the cursor. */
    synchronized int nextIndex() {
        return (int) (cursor++ % conversations.size());
    }

    Conversation get(int index) {
        return conversations.get(index);
    }
}
