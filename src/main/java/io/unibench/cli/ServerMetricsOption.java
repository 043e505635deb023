package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.Secrets;
import io.unibench.scrape.ServerMetricsScraper;
import picocli.CommandLine.Option;

import java.net.URI;

/** {@code --server-metrics URL|off}, shared by {@code perf}, {@code run} and {@code check}. */
public final class ServerMetricsOption {
    @Option(names = "--server-metrics", paramLabel = "URL|off", description = "The target's Prometheus endpoint, "
            + "read once a second during the run; 'off' to not read it. vLLM, SGLang, TGI and llama.cpp names are "
            + "understood. Default: the base URL's /metrics.")
    String value;

    /** The endpoint to scrape for a target {@code endpoint}; null when off. */
    URI url(URI endpoint) {
        if (value == null) return ServerMetricsScraper.defaultUrl(endpoint);
        if (value.equals("off")) return null;
        URI uri;
        try {
            uri = URI.create(value.strip());
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--server-metrics " + Secrets.redact(value) + ": not a URL (or 'off')");
        }
        if (uri.getScheme() == null || !uri.getScheme().matches("https?") || uri.getHost() == null) {
            throw new BadInputException("--server-metrics " + Secrets.redact(value)
                    + ": expected an http:// or https:// URL, or 'off'");
        }
        return uri;
    }
}
