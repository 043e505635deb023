package io.unibench.engine;

/**
 * Waits a conversation's idle pauses (tool calls the agent waited for). Injectable so tests observe the pauses a run
 * asked for without spending them; the real one waits on the run's {@link Clock}, whose waits a stop (Ctrl-C) cuts short.
 */
@FunctionalInterface
public interface Pauser {
    /**
     * Pauses {@code nanos} nanoseconds of {@code conversationId} before its turn {@code turn}.
     *
     * @return true when the run was stopped meanwhile (the conversation ends)
     */
    boolean pause(String conversationId, int turn, long nanos) throws InterruptedException;

    /** Waits the given time on {@code clock}, whose waits end early on a stop. */
    static Pauser waitingOn(Clock clock) {
        return (conversation, turn, nanos) -> !clock.awaitUntil(clock.nanoTime() + nanos);
    }
}
