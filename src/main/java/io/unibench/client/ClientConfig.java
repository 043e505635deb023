package io.unibench.client;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * How to reach the endpoint.
 *
 * @param endpoint       full URL of the endpoint, e.g. {@code http://127.0.0.1:8000/v1/chat/completions}
 * @param headers        extra request headers (Authorization included); never logged in clear
 * @param connectTimeout TCP (and TLS) connect timeout; {@code null} = none
 * @param readTimeout    longest gap allowed between two reads of the response; {@code null} = none
 * @param totalTimeout   longest a whole request may take; {@code null} = none
 * @param maxConnections connection pool size; keep it above the concurrency
 * @param debug          log request and response chunks (truncated, secrets masked)
 * @param tls            how {@code https://} connections verify the server (ignored for {@code http://})
 * @param api            which API the endpoint speaks: how replies are read (chat and completions read alike)
 */
public record ClientConfig(
        URI endpoint,
        Map<String, String> headers,
        Duration connectTimeout,
        Duration readTimeout,
        Duration totalTimeout,
        int maxConnections,
        boolean debug,
        TlsOptions tls,
        ApiFormat api) {

    public ClientConfig {
        headers = Map.copyOf(headers);
        if (tls == null) tls = TlsOptions.DEFAULT;
        if (api == null) api = ApiFormat.CHAT;
    }

    /** An OpenAI chat or completions endpoint. */
    public ClientConfig(URI endpoint, Map<String, String> headers, Duration connectTimeout, Duration readTimeout,
                        Duration totalTimeout, int maxConnections, boolean debug, TlsOptions tls) {
        this(endpoint, headers, connectTimeout, readTimeout, totalTimeout, maxConnections, debug, tls, ApiFormat.CHAT);
    }

    /** This configuration for an endpoint speaking {@code format}. */
    public ClientConfig withApi(ApiFormat format) {
        return new ClientConfig(endpoint, headers, connectTimeout, readTimeout, totalTimeout, maxConnections, debug,
                tls, format);
    }

    /** Verification by the JDK's trust store for {@code https://}. */
    public ClientConfig(URI endpoint, Map<String, String> headers, Duration connectTimeout, Duration readTimeout,
                        Duration totalTimeout, int maxConnections, boolean debug) {
        this(endpoint, headers, connectTimeout, readTimeout, totalTimeout, maxConnections, debug, TlsOptions.DEFAULT);
    }
}
