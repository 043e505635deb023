package io.unibench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.unibench.Secrets;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.ProviderRecorders;
import io.unibench.store.RunStart;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
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

    static ProviderRecorders recorders(RunHistory history, List<String> tags, Path file, BenchConfig bench) {
        if (!history.enabled()) return ProviderRecorders.NONE;
        ObjectNode config = maskedConfig(file);
        List<String> allTags = new ArrayList<>(tags);
        allTags.add("scenario-file");
        return (provider, url) -> history.start(new RunStart(bench.name() + "/" + provider.name(), allTags,
                provider.model(), Secrets.redact(url), config, environment(provider, url)));
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

    static Map<String, Object> environment(BenchConfig.Provider provider, String url) {
        Map<String, Object> env = RunHistory.environment(url, provider.embeddedSimulator(), provider.model());
        env.put("provider", provider.name());
        return env;
    }
}
