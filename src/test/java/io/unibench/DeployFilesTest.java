package io.unibench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.unibench.cli.PerfCommand;
import io.unibench.cli.RunCommand;
import io.unibench.cli.ServeCommand;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.ScenarioFile;
import io.unibench.web.KeyAllowList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaging files, parsed and held to each other, since no container engine runs where the tests run:
 * compose.yaml, .env.example, the Dockerfile and deploy/k8s/*.yaml agree on the port, the volume, the health check,
 * the user, the image, the variable names the entrypoint reads, and the flags they pass exist.
 */
class DeployFilesTest {
    private static final YAMLMapper YAML = new YAMLMapper();
    @TempDir
    Path tmp;
    private static final int PORT = 8080;
    private static final int UID = 10001;

    @Test
    void composeRunsThePlatformWithATokenAVolumeAHealthCheckAndPostgresInAProfile() throws Exception {
        JsonNode compose = YAML.readTree(Path.of("compose.yaml").toFile());
        JsonNode app = compose.at("/services/unibench");
        assertThat(app.path("build").asText()).isEqualTo(".");
        assertThat(texts(app.path("command"))).containsExactly("serve", "--host", "0.0.0.0", "--port", "" + PORT);
        // the token is required (${VAR:?…}): compose refuses to start without it, as serve refuses to bind 0.0.0.0
        assertThat(app.at("/environment/UNIBENCH_TOKEN").asText()).startsWith("${UNIBENCH_TOKEN:?");
        assertThat(app.at("/environment").has("UNIBENCH_DB")).isTrue();
        // every variable of .env reaches the container (provider keys, channel secrets) without editing compose.yaml
        assertThat(app.at("/env_file/0/path").asText()).isEqualTo(".env");
        assertThat(app.at("/env_file/0/required").asBoolean(true)).isFalse();
        assertThat(app.path("ports").get(0).asText()).endsWith(":" + PORT);
        assertThat(app.path("volumes").get(0).asText()).isEqualTo("unibench-data:/data");
        assertThat(compose.at("/volumes").has("unibench-data")).isTrue();
        assertThat(texts(app.at("/healthcheck/test"))).containsExactly("CMD", "unibench-entrypoint", "healthcheck");
        assertThat(app.at("/depends_on/postgres/condition").asText()).isEqualTo("service_healthy");
        assertThat(app.at("/depends_on/postgres/required").asBoolean(true)).isFalse();
        JsonNode pg = compose.at("/services/postgres");
        assertThat(texts(pg.path("profiles"))).containsExactly("postgres");
        assertThat(texts(pg.at("/healthcheck/test")).get(1)).startsWith("pg_isready");
        assertThat(pg.path("volumes").get(0).asText()).endsWith(":/var/lib/postgresql/data");
        assertThat(pg.at("/environment/POSTGRES_PASSWORD").asText()).startsWith("${POSTGRES_PASSWORD:?");
    }

    @Test
    void envExampleListsEveryVariableComposeReads() throws Exception {
        Set<String> used = new TreeSet<>();
        Matcher m = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)").matcher(Files.readString(Path.of("compose.yaml")));
        while (m.find()) used.add(m.group(1));
        Set<String> listed = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of(".env.example"))) {
            if (!line.isBlank() && !line.startsWith("#")) listed.add(line.substring(0, line.indexOf('=')));
        }
        // .env.example may list more (provider keys pass through env_file), never fewer
        assertThat(listed).containsAll(used).contains("UNIBENCH_TOKEN", "UNIBENCH_DB", "OPENAI_API_KEY");
        // nothing secret is filled in
        for (String line : Files.readAllLines(Path.of(".env.example"))) {
            if (line.matches("[A-Z_]*(TOKEN|PASSWORD|KEY)=.*")) assertThat(line).endsWith("=");
        }
        assertThat(Files.readAllLines(Path.of(".gitignore"))).contains(".env");
    }

    @Test
    void deployFilesShowTheServicesAllowListsWithTheirDefaultsAndFlags() throws Exception {
        // a team whose key or channel variable has another name finds where to allow it, with the defaults serve uses
        String env = Files.readString(Path.of(".env.example"));
        assertThat(env).contains("# " + KeyAllowList.ENV + "=" + KeyAllowList.DEFAULT + "\n",
                "# " + KeyAllowList.CHANNEL_ENV + "=" + KeyAllowList.CHANNEL_DEFAULT + "\n");
        String compose = Files.readString(Path.of("compose.yaml"));
        assertThat(compose).contains("# " + KeyAllowList.ENV + ": \"" + KeyAllowList.DEFAULT + "\"",
                "# " + KeyAllowList.CHANNEL_ENV + ": \"" + KeyAllowList.CHANNEL_DEFAULT + "\"");
        String k8s = Files.readString(Path.of("deploy/k8s/platform.yaml"));
        assertThat(k8s).contains("# - name: " + KeyAllowList.ENV + "\n            #   value: \"" + KeyAllowList.DEFAULT,
                "# - name: " + KeyAllowList.CHANNEL_ENV + "\n            #   value: \"" + KeyAllowList.CHANNEL_DEFAULT);
        // the flags the comments name exist
        CommandLine serve = new CommandLine(new ServeCommand());
        for (String flag : List.of("--allow-key-env", "--allow-channel-env")) {
            assertThat(serve.getCommandSpec().findOption(flag)).as(flag).isNotNull();
            assertThat(env).contains(flag);
            assertThat(compose).contains(flag);
            assertThat(k8s).contains(flag);
        }
    }

    @Test
    void dockerfileBuildsWithMavenAndRunsNonRootOnTheMeasuredJre25WithAHealthCheckAndAVolume() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("Dockerfile"));
        List<String> froms = lines.stream().filter(l -> l.startsWith("FROM ")).toList();
        assertThat(froms).hasSize(2);
        assertThat(froms.getFirst()).contains("AS build");
        String jre = lines.stream().filter(l -> l.startsWith("ARG JRE_IMAGE=")).findFirst().orElseThrow();
        Matcher v = Pattern.compile(":(\\d+)-jre").matcher(jre);
        assertThat(v.find()).isTrue();
        // the JDK every figure in bench/ is measured on (issue 31), for the build stage too
        assertThat(Integer.parseInt(v.group(1))).isEqualTo(25);
        assertThat(lines).anyMatch(l -> l.startsWith("ARG MAVEN_IMAGE=") && l.endsWith("-temurin-25"));
        assertThat(lines).anyMatch(l -> l.startsWith("RUN mvn ") && l.contains("package"));
        assertThat(lines).contains("USER " + UID + ":" + UID, "EXPOSE " + PORT, "VOLUME [\"/data\"]",
                "ENTRYPOINT [\"unibench-entrypoint\"]");
        assertThat(lines).anyMatch(l -> l.startsWith("HEALTHCHECK ") && l.endsWith("[\"unibench-entrypoint\", \"healthcheck\"]"));
        assertThat(lines).anyMatch(l -> l.startsWith("COPY docker/entrypoint.sh "));
        assertThat(Path.of("docker/entrypoint.sh")).isExecutable();
    }

    @Test
    void kubernetesPlatformIsADeploymentServiceAndClaimThatAgree() throws Exception {
        List<JsonNode> docs = docs("deploy/k8s/platform.yaml");
        JsonNode pvc = kind(docs, "PersistentVolumeClaim");
        JsonNode deploy = kind(docs, "Deployment");
        JsonNode service = kind(docs, "Service");
        JsonNode pod = deploy.at("/spec/template/spec");
        JsonNode c = pod.path("containers").get(0);
        assertThat(texts(c.path("args"))).containsExactly("serve", "--host", "0.0.0.0", "--port", "" + PORT);
        assertThat(c.at("/ports/0/containerPort").asInt()).isEqualTo(PORT);
        String portName = c.at("/ports/0/name").asText();
        assertThat(service.at("/spec/ports/0/targetPort").asText()).isEqualTo(portName);
        assertThat(service.at("/spec/selector")).isEqualTo(deploy.at("/spec/selector/matchLabels"));
        assertThat(deploy.at("/spec/template/metadata/labels")).isEqualTo(deploy.at("/spec/selector/matchLabels"));
        for (String probe : List.of("readinessProbe", "livenessProbe")) {
            assertThat(c.at("/" + probe + "/httpGet/path").asText()).isEqualTo("/healthz");
            assertThat(c.at("/" + probe + "/httpGet/port").asText()).isEqualTo(portName);
        }
        assertThat(c.at("/volumeMounts/0/mountPath").asText()).isEqualTo("/data");
        String volume = c.at("/volumeMounts/0/name").asText();
        JsonNode claim = find(pod.path("volumes"), "name", volume);
        assertThat(claim.at("/persistentVolumeClaim/claimName").asText()).isEqualTo(pvc.at("/metadata/name").asText());
        assertNonRoot(pod);
        assertThat(secretRef(c, "UNIBENCH_TOKEN").path("optional").asBoolean(false)).isFalse();
        assertThat(secretRef(c, "UNIBENCH_DB").path("optional").asBoolean()).isTrue();
        assertThat(c.path("image").asText()).isEqualTo(shardContainer().path("image").asText());
    }

    @ParameterizedTest
    @ValueSource(strings = {"deploy/k8s/sharded-run.yaml", "deploy/k8s/sharded-scenario.yaml"})
    void shardedRunIsAnIndexedJobWhosePodsBecomeShardsOfOneGroup(String manifest) throws Exception {
        JsonNode job = kind(docs(manifest), "Job");
        assertThat(job.at("/spec/completionMode").asText()).isEqualTo("Indexed");
        int n = job.at("/spec/completions").asInt();
        assertThat(job.at("/spec/parallelism").asInt()).isEqualTo(n);
        assertThat(job.at("/spec/backoffLimit").asInt()).isZero();
        JsonNode c = job.at("/spec/template/spec/containers/0");
        assertThat(c.path("image").asText()).isEqualTo(shardContainer().path("image").asText());
        assertThat(find(c.path("env"), "name", "UNIBENCH_SHARDS").path("value").asText()).isEqualTo("" + n);
        assertThat(find(c.path("env"), "name", "JOB_COMPLETION_INDEX").at("/valueFrom/fieldRef/fieldPath").asText())
                .contains("job-completion-index");
        assertThat(find(c.path("env"), "name", "UNIBENCH_RUN_GROUP").at("/valueFrom/fieldRef/fieldPath").asText())
                .contains("job-name");
        assertThat(secretRef(c, "UNIBENCH_DB").path("key").asText()).isEqualTo("db-url");
        assertNonRoot(job.at("/spec/template/spec"));
        // every variable the manifests set for the entrypoint is one it reads
        String entrypoint = Files.readString(Path.of("docker/entrypoint.sh"));
        for (String name : List.of("UNIBENCH_SHARDS", "JOB_COMPLETION_INDEX", "UNIBENCH_RUN_GROUP")) {
            assertThat(entrypoint).contains("${" + name);
        }
        // the Secret the pods read has the keys they name
        JsonNode secret = kind(docs("deploy/k8s/secret.example.yaml"), "Secret");
        for (JsonNode e : c.path("env")) {
            JsonNode ref = e.at("/valueFrom/secretKeyRef");
            if (ref.isMissingNode()) continue;
            assertThat(ref.path("name").asText()).isEqualTo(secret.at("/metadata/name").asText());
            assertThat(secret.at("/stringData").has(ref.path("key").asText())).as(ref.toString()).isTrue();
        }
        // the flags are perf's (or run's) own, with the entrypoint's --shard/--run-group added: picocli parses them
        List<String> args = new ArrayList<>(texts(c.path("args")));
        String command = args.removeFirst();
        args.addAll(List.of("--shard", "0/" + n, "--run-group", "g"));
        if (command.equals("perf")) {
            new CommandLine(new PerfCommand()).parseArgs(args.toArray(String[]::new));
            return;
        }
        assertThat(command).isEqualTo("run");
        new CommandLine(new RunCommand()).parseArgs(args.toArray(String[]::new));
        // run --config names the file of the ConfigMap the pod mounts; that file is a valid scenario file whose
        // every level and request count N shards can split
        String config = args.get(args.indexOf("--config") + 1);
        Path path = Path.of(config);
        JsonNode mount = find(c.path("volumeMounts"), "mountPath", path.getParent().toString());
        JsonNode volume = find(job.at("/spec/template/spec/volumes"), "name", mount.path("name").asText());
        JsonNode map = kind(docs(manifest), "ConfigMap");
        assertThat(volume.at("/configMap/name").asText()).isEqualTo(map.at("/metadata/name").asText());
        Path file = tmp.resolve(path.getFileName().toString());
        Files.writeString(file, map.at("/data").path(path.getFileName().toString()).asText());
        BenchConfig bench = ScenarioFile.load(file, java.util.Map.of("OPENAI_API_KEY", "sk-test"));
        assertThat(bench.concurrency().levels()).allMatch(level -> level >= n);
        assertThat(bench.concurrency().requestsPerLevel()).isGreaterThanOrEqualTo(n);
        assertThat(bench.providers()).allMatch(p -> p.apiKeyEnv() == null || find(c.path("env"), "name",
                p.apiKeyEnv()).has("valueFrom"));
    }

    private static JsonNode shardContainer() throws Exception {
        return kind(docs("deploy/k8s/sharded-run.yaml"), "Job").at("/spec/template/spec/containers/0");
    }

    private static void assertNonRoot(JsonNode pod) {
        assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
        assertThat(pod.at("/securityContext/runAsUser").asInt()).isEqualTo(UID);
    }

    private static JsonNode secretRef(JsonNode container, String env) {
        return find(container.path("env"), "name", env).at("/valueFrom/secretKeyRef");
    }

    private static List<JsonNode> docs(String file) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(Path.of(file).toFile())) {
            while (it.hasNext()) out.add(it.next());
        }
        return out;
    }

    private static JsonNode kind(List<JsonNode> docs, String kind) {
        return docs.stream().filter(d -> d.path("kind").asText().equals(kind)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind));
    }

    private static JsonNode find(JsonNode array, String key, String value) {
        for (JsonNode n : array) if (n.path(key).asText().equals(value)) return n;
        throw new AssertionError("no " + key + "=" + value + " in " + array);
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
