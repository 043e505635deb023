package io.unibench.engine;

import io.unibench.client.ClientResult;

/**
 * What a run may add around every request: a gate before it starts (the scenario file's global rate limiter) and a
 * check of its result (the scenario's {@code validate} rules, which may turn a reply into a failure). Called on the
 * worker's virtual thread, so the gate may block.
 */
public interface RequestHooks {
    RequestHooks NONE = new RequestHooks() {};

    /** Blocks until the request may start; false when the run was stopped meanwhile (the request is not sent). */
    default boolean awaitStart() {
        return true;
    }

    /** The result to record: {@code result} itself, or a failure derived from it. */
    default ClientResult check(ClientResult result) {
        return result;
    }
}
