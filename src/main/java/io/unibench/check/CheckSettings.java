package io.unibench.check;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What {@code unibench check} was asked to do.
 *
 * @param endpoint         the chat completions URL ({@code …/v1/chat/completions})
 * @param model            the model every request names
 * @param headers          request headers (the API key as {@code Authorization}); never shown in clear
 * @param timeout          the client's limit for one request: a request still waiting at this point "waited until
 *                         the client's timeout"
 * @param concurrencyLimit the server's concurrency limit when known ({@code --concurrency-limit}); null = found by
 *                         ramping
 * @param settle           how long the server may take to settle after a cancellation or a burst
 * @param allowLoad        run the load checks
 * @param metrics          the server's Prometheus endpoint; null = not scraped
 * @param servedModels     the models the user says the server serves ({@code --served-models}); empty = not
 *                         declared, so a server that answers any model name is told, not failed
 */
public record CheckSettings(URI endpoint, String model, Map<String, String> headers, Duration timeout,
                            Integer concurrencyLimit, Duration settle, boolean allowLoad, URI metrics,
                            List<String> servedModels) {
    public CheckSettings {
        headers = Map.copyOf(headers);
        servedModels = List.copyOf(servedModels);
    }

    public CheckSettings(URI endpoint, String model, Map<String, String> headers, Duration timeout,
                         Integer concurrencyLimit, Duration settle, boolean allowLoad, URI metrics) {
        this(endpoint, model, headers, timeout, concurrencyLimit, settle, allowLoad, metrics, List.of());
    }
}
