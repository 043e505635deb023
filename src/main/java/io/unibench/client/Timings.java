package io.unibench.client;

/**
 * The server's own account of its timing, as llama.cpp's {@code llama-server} sends it in a {@code timings} object
 * (in the last chunk of a stream and in a non-streamed reply). Fields it did not send are -1 (counts) or NaN
 * (times).
 *
 * @param promptN     {@code prompt_n}: prompt tokens the server computed (those not served from its cache)
 * @param promptMs    {@code prompt_ms}: its time to compute them (prefill), ms
 * @param predictedN  {@code predicted_n}: tokens it generated
 * @param predictedMs {@code predicted_ms}: its time from the first generated token to the last, ms
 * @param cacheN      {@code cache_n}: prompt tokens it took from its cache
 */
public record Timings(int promptN, double promptMs, int predictedN, double predictedMs, int cacheN) {}
