package io.unibench.engine;

import io.unibench.client.ClientResult;

import java.util.concurrent.CompletableFuture;

/**
 * What the engine needs of a client: {@link io.unibench.client.LlmClient#send}. The runners take one so a test can put
 * a server of exact service times, on a {@link Clock} it drives, behind the real load loops.
 */
@FunctionalInterface
public interface Sender {
    /** Sends one request; the future never completes exceptionally (a failure is a result with an error class). */
    CompletableFuture<ClientResult> send(byte[] jsonBody, boolean stream, String requestId);
}
