package io.unibench.engine.live;

/** How a run ended. */
public enum RunStatus {
    /** Every point ran to its end. */
    FINISHED,
    /** Cancelled (Ctrl-C, the web's cancel, a duration cap of the whole run). */
    STOPPED,
    /** Ended by an error: unreachable target, a sink that cannot write, a bug. */
    FAILED
}
