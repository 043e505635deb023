package io.unibench.client;

/** Which OpenAI API the endpoint speaks: {@code /v1/chat/completions} ({@code messages}) or {@code /v1/completions} ({@code prompt}). */
public enum ApiFormat {
    CHAT,
    COMPLETIONS
}
