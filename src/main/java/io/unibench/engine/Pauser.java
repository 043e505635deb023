package io.unibench.engine;

/**
 * Waits a conversation's idle pauses (tool calls the agent waited for). Injectable so tests observe the pauses a run
 * asked for without spending them; the real one waits on the run's {@link StopSignal}, so Ctrl-C cuts a pause short.
 */
@FunctionalInterface
public interface Pauser {
    /**
     * Pauses {@code nanos} nanoseconds of {@code conversationId} before its turn {@code turn}.
     *
     * @return true when the run was stopped meanwhile (the conversation ends)
     */
    boolean pause(String conversationId, int turn, long nanos) throws InterruptedException;

    /** Waits on {@code stop} for the given time. */
    static Pauser waitingOn(StopSignal stop) {
        return (conversation, turn, nanos) -> stop.awaitUntil(System.nanoTime() + nanos);
    }
}
