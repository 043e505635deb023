package io.unibench.engine;

import io.unibench.client.ClientResult;

/**
 * What a run may add around every request: a gate before it starts (the scenario file's global rate limiter) and a
 * check of its result (the scenario's {@code validate} rules, which may turn a reply into a failure). The gate may
 * block: it runs on the closed loop's worker (a virtual thread) or on the open loop's dispatcher, where waiting in it
 * delays the next starts as a slow server would; the check runs on the worker or on the open loop's recorder thread.
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
