package io.unibench.engine;

import io.unibench.workload.Prompt;

/** A request body ready for the wire, with the prompt it came from (for client-side token counting). */
public record PreparedRequest(long sequence, String requestId, byte[] body, boolean stream, Prompt prompt) {}
