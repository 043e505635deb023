package io.unibench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.unibench.BadInputException;
import io.unibench.Secrets;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.ProviderRecorders;
import io.unibench.store.RunEnvironment;
import io.unibench.store.RunRecorder;
import io.unibench.store.RunStart;
import io.unibench.store.StoreLocation;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The run history of {@code unibench run}: one stored run per provider, named {@code FILE-NAME/PROVIDER}, tagged
 * with the user's {@code --tag}s and {@code scenario-file}; its configuration is the scenario file itself (header
 * values that look secret masked; API keys are never in the file, only the names of their variables).
 */
final class ScenarioStore {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private ScenarioStore() {}

    static ProviderRecorders open(boolean noDb, String db, List<String> tags, Path file, BenchConfig bench,
                                  Map<String, String> env, PrintWriter err) {
        if (noDb) return ProviderRecorders.NONE;
        StoreLocation location = StoreLocation.resolve(db, env);
        ObjectNode config = maskedConfig(file);
        List<String> allTags = new ArrayList<>(tags);
        allTags.add("scenario-file");
        try {
            RunRecorder.open(location, err).finish(false); // fail fast: the store opens, migrates, recovers
        } catch (SQLException e) {
            throw new BadInputException("--db " + location.display() + ": cannot open the run history ("
                    + StoreLocation.mask(String.valueOf(e.getMessage())) + "); --no-db runs without it");
        }
        return (provider, url) -> {
            try {
                RunRecorder recorder = RunRecorder.open(location, err);
                recorder.start(new RunStart(bench.name() + "/" + provider.name(), allTags, provider.model(),
                        Secrets.redact(url), config, environment(provider, url)));
                return recorder;
            } catch (SQLException e) {
                err.println("Run history: not stored (" + StoreLocation.mask(String.valueOf(e.getMessage())) + ")");
                return RunRecorder.disabled();
            }
        };
    }

    private static ObjectNode maskedConfig(Path file) {
        try {
            ObjectNode tree = (ObjectNode) YAML.readTree(file.toFile());
            maskHeaders(tree.path("provider"));
            tree.path("providers").forEach(ScenarioStore::maskHeaders);
            return tree;
        } catch (IOException | ClassCastException e) {
            return YAML.createObjectNode(); // already validated; an unreadable file cannot reach here
        }
    }

    private static void maskHeaders(com.fasterxml.jackson.databind.JsonNode provider) {
        if (provider.path("headers") instanceof ObjectNode headers) {
            List<String> names = new ArrayList<>();
            headers.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                if (Secrets.isSecretHeader(name)) headers.put(name, Secrets.mask(headers.path(name).asText()));
            }
        }
    }

    private static Map<String, Object> environment(BenchConfig.Provider provider, String url) {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("tool_version", Version.current());
        env.put("git_commit", RunEnvironment.gitCommit(ScenarioStore.class));
        env.putAll(RunEnvironment.machine());
        env.put("local_address", RunEnvironment.localAddressToward(url));
        env.put("target_base_url", RunEnvironment.baseUrl(Secrets.redact(url)));
        env.put("embedded_simulator", provider.embeddedSimulator());
        env.put("model", provider.model());
        env.put("provider", provider.name());
        return env;
    }
}
