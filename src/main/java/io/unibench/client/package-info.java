/**
 * One request on the wire: request bodies ({@link io.unibench.client.RequestBodyBuilder}), the Netty HTTP client
 * ({@link io.unibench.client.LlmClient}), SSE parsing ({@link io.unibench.client.SseParser}), response
 * validation, timing capture and error classes. Depends on nothing else of ours.
 *
 * <p>Typical use from a virtual thread:
 * <pre>{@code
 * try (LlmClient client = new LlmClient(config)) {
 *     ObjectNode body = new RequestBodyBuilder().build(params, messages, null, null, rng);
 *     ClientResult r = client.send(mapper.writeValueAsBytes(body), params.stream(), requestId).join();
 *     if (!r.success()) { ... r.errorClass() ... }
 * }
 * }</pre>
 * Timestamps are {@link System#nanoTime()} readings taken on the event loop when the bytes arrived.
 */
package io.unibench.client;
