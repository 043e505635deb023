package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.unibench.BadInputException;
import io.unibench.net.ServerCertificate;
import io.netty.handler.ssl.SslContext;
import io.unibench.sim.FaultKind;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimKnobs;
import io.unibench.sim.SimProfiles;
import io.unibench.sim.SimServer;
import io.unibench.tokenizer.Tokenizers;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code unibench sim}: the simulated OpenAI-compatible server, standalone, until Ctrl-C. Its flags are generated
 * from {@link SimKnobs} (one {@code --NAME} per knob), so flags, profile files and presets can never disagree.
 * Precedence: defaults &lt; {@code --profile} &lt; {@code --config} file &lt; flags given on the command line.
 */
@Command(name = "sim", mixinStandardHelpOptions = true, sortOptions = false, modelTransformer = SimCommand.KnobOptions.class,
        description = {"Run the simulated LLM server: /v1/chat/completions, /v1/completions, /v1/models, /health, /metrics.",
                "A vLLM-like engine: waiting queue, continuous batching, chunked prefill, KV cache with prefix caching;",
                "faults by rate (--fault-rate-*) or per request with the header X-Unibench-Fault: {\"type\": \"...\"}.",
                "Profiles (--profile): default, instant, small-gpu, h100-8b, flaky. See docs/simulator.md."})
public final class SimCommand implements Callable<Integer> {
    /** `unibench sim` listens on evalscope's default port unless told otherwise (the library default is 0). */
    static final int DEFAULT_PORT = 8877;

    @Spec
    CommandSpec spec;

    @Option(names = "--profile", paramLabel = "NAME", order = -2,
            description = "Preset to start from: default, instant, small-gpu, h100-8b, flaky. Default: default")
    String profile;

    @Option(names = "--config", paramLabel = "FILE", order = -1, description = "YAML or JSON file of knobs by flag "
            + "name without dashes (e.g. `itl-ms: 8`, `fault-rate-429: 0.05`); may name a `profile`.")
    Path config;

    @Option(names = "--tls", order = 1001, description = "Serve https with a self-signed certificate made at start for "
            + "127.0.0.1, localhost and ::1 (written to a PEM file named at start: give it to clients as --ca-cert). "
            + "Default: plain http.")
    boolean tls;

    @Option(names = "--tls-cert", paramLabel = "FILE", order = 1002, description = "Serve https with this PEM "
            + "certificate chain (implies --tls; needs --tls-key). Default: none.")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", order = 1003, description = "The unencrypted PKCS#8 PEM key "
            + "(BEGIN PRIVATE KEY) of --tls-cert. Default: none.")
    Path tlsKey;

    @Option(names = "--no-report-cached-tokens", order = 1000, description = "Same as --report-cached-tokens=false "
            + "(as a server without --enable-prompt-tokens-details).")
    boolean noReportCachedTokens;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        SimConfig config = resolve();
        CountDownLatch closed = new CountDownLatch(1);
        Tls served = tls(out);
        SimServer server = listen(config, served.context());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            closed.countDown();
        }, "unibench-sim-stop"));
        out.println("unibench sim listening on " + server.baseUrl() + " (model " + config.model() + ", max-num-seqs "
                + config.scheduling().maxNumSeqs() + ", itl " + config.itlMs() + " ms); Ctrl-C to stop");
        if (!config.faults().rates().isEmpty()) out.println("fault rates: " + rates(config));
        out.println("try: ./unibench perf --url " + server.baseUrl() + "/v1/chat/completions --model " + config.model()
                + (served.certificateFile() == null ? "" : " --ca-cert " + served.certificateFile()));
        out.println("metrics: curl " + (served.certificateFile() == null ? "" : "--cacert " + served.certificateFile() + " ")
                + server.baseUrl() + "/metrics");
        closed.await();
        return 0;
    }

    /** Starts the server; an address that cannot be bound (port taken, not this machine's) is bad input. */
    private static SimServer listen(SimConfig config, SslContext tls) {
        try {
            java.net.InetAddress.getByName(config.host());
        } catch (java.net.UnknownHostException e) {
            throw new BadInputException("--host '" + config.host() + "': not an address or host name of this machine");
        }
        try {
            return SimServer.start(config, Tokenizers.load(config.tokenizer()), tls);
        } catch (IllegalStateException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new BadInputException("sim: cannot listen on " + config.host() + ":" + config.port() + " ("
                    + cause.getMessage() + "); is another process using the port? --port N picks another, "
                    + "--port 0 a free one");
        }
    }

    /**
     * How the server speaks TLS: {@code context} null = plain http; {@code certificateFile} the PEM file of a
     * certificate made at start, for clients to trust ({@code null} when the user gave the files).
     */
    private record Tls(SslContext context, Path certificateFile) {}

    /** No TLS, the given PEM files, or (--tls alone) a self-signed certificate made now and written to a PEM file. */
    private Tls tls(PrintWriter out) {
        if (tlsCert == null && tlsKey == null) {
            if (!tls) return new Tls(null, null);
            ServerCertificate cert = ServerCertificate.selfSigned(ServerCertificate.LOOPBACK_NAMES);
            Path pem;
            try {
                pem = Files.createTempFile("unibench-sim-cert-", ".pem");
                Files.writeString(pem, cert.certificatePem());
            } catch (IOException e) {
                throw new IllegalStateException("cannot write the simulator's certificate: " + e.getMessage(), e);
            }
            pem.toFile().deleteOnExit();
            out.println("TLS: self-signed certificate for 127.0.0.1, localhost, ::1 (valid 30 days) in " + pem
                    + "; clients trust it with --ca-cert " + pem + " (or skip verification with --insecure)");
            return new Tls(cert.serverContext(), pem);
        }
        if (tlsCert == null || tlsKey == null) {
            throw new BadInputException(tlsCert == null ? "--tls-key needs --tls-cert" : "--tls-cert needs --tls-key");
        }
        try {
            return new Tls(ServerCertificate.serverContext(tlsCert, tlsKey), null);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--tls-cert/--tls-key: " + e.getMessage());
        }
    }

    /** The configuration the parsed command line asks for. */
    SimConfig resolve() {
        Map<String, Object> knobs = new LinkedHashMap<>();
        knobs.put("port", DEFAULT_PORT);
        String base = profile;
        Map<String, Object> fromFile = config == null ? Map.of() : readFile(config);
        if (base == null && fromFile.get("profile") != null) base = fromFile.get("profile").toString();
        if (base != null) {
            Map<String, Object> preset = SimProfiles.knobs(base);
            if (preset == null) {
                throw new BadInputException("--profile '" + base + "': unknown profile; one of "
                        + String.join(", ", SimProfiles.all().keySet()));
            }
            knobs.putAll(preset);
        }
        fromFile.forEach((k, v) -> {
            if (!k.equals("profile")) knobs.put(k, v);
        });
        for (OptionSpec o : spec.commandLine().getParseResult().matchedOptions()) {
            String name = o.longestName().substring(2);
            if (SimKnobs.byName(name) != null) knobs.put(name, o.getValue());
        }
        if (noReportCachedTokens) knobs.put("report-cached-tokens", false);
        try {
            return SimConfig.defaults().with(knobs);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(where(e.getMessage(), fromFile.keySet()));
        }
    }

    /**
     * A knob's problem named where it was given: {@code --port -1: must be in 0..65535} for a flag, {@code FILE: port:
     * …} for the config file, else (a profile's value) {@code sim: port …}.
     */
    private String where(String message, java.util.Set<String> inFile) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(?:SimConfig\\.)?([a-z0-9-]+) (.*)$",
                java.util.regex.Pattern.DOTALL).matcher(String.valueOf(message));
        if (!m.matches()) return (config != null ? config + " / " : "") + "sim: " + message;
        String knob = m.group(1);
        for (OptionSpec o : spec.commandLine().getParseResult().matchedOptions()) {
            if (o.longestName().equals("--" + knob)) {
                Object v = o.getValue();
                return "--" + knob + " " + (v instanceof String text ? "'" + text + "'" : v) + ": " + m.group(2);
            }
        }
        if (inFile.contains(knob)) return config + ": " + knob + ": " + m.group(2);
        return "sim: " + message;
    }

    private static Map<String, Object> readFile(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        ObjectMapper mapper = name.endsWith(".json") ? new ObjectMapper() : new ObjectMapper(new YAMLFactory());
        JsonNode root;
        try {
            root = mapper.readTree(Files.readAllBytes(file));
        } catch (IOException e) {
            throw BadInputException.at(file.toString(), 0, null, "cannot read: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw BadInputException.at(file.toString(), 0, null, "must be a map of simulator settings");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = e.getKey();
            if (!key.equals("profile") && !key.equals("cache-blocks") && SimKnobs.byName(key) == null) {
                throw BadInputException.at(file.toString(), 0, key, "unknown setting (names are the flags of "
                        + "`unibench sim` without dashes)");
            }
            JsonNode v = e.getValue();
            Object value;
            if (v.isArray()) {
                List<String> items = new java.util.ArrayList<>();
                v.forEach(item -> items.add(item.asText()));
                value = items;
            } else if (v.isBoolean()) {
                value = v.booleanValue();
            } else if (v.isNumber()) {
                value = v.numberValue();
            } else if (v.isNull()) {
                throw BadInputException.at(file.toString(), 0, key, "has no value");
            } else {
                value = v.asText();
            }
            out.put(key, value);
        }
        return out;
    }

    private static String rates(SimConfig c) {
        StringBuilder sb = new StringBuilder();
        for (FaultKind k : FaultKind.values()) {
            double r = c.faults().rate(k);
            if (r > 0) sb.append(sb.isEmpty() ? "" : ", ").append(k.id()).append(' ').append(r);
        }
        return sb.toString();
    }

    /** Adds one option per {@link SimKnobs} knob, typed, with its description and default. */
    public static final class KnobOptions implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            Map<String, Object> defaults = SimConfig.defaults().withPort(DEFAULT_PORT).knobValues();
            int order = 0;
            for (SimKnobs.Knob knob : SimKnobs.all()) {
                Class<?> type = knob.type() == List.class ? String.class : knob.type();
                Object d = defaults.get(knob.name());
                String shown = d instanceof List<?> l ? (l.isEmpty() ? "(none)" : String.join(",", l.stream().map(Object::toString).toList()))
                        : String.valueOf(d);
                spec.addOption(OptionSpec.builder("--" + knob.name())
                        .type(type)
                        .arity("1")
                        .paramLabel(paramLabel(knob))
                        .order(order++)
                        .description(knob.description() + " Default: " + shown)
                        .build());
            }
            return spec;
        }

        private static String paramLabel(SimKnobs.Knob knob) {
            Class<?> t = knob.type();
            if (t == Boolean.class) return "true|false";
            if (t == Double.class) return knob.name().endsWith("-ms") || knob.name().contains("-ms-") ? "MS" : "X";
            if (t == Integer.class || t == Long.class) return "N";
            if (t == List.class) return "A,B";
            return "TEXT";
        }
    }
}
