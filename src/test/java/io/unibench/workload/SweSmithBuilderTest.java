package io.unibench.workload;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SweSmithBuilderTest {
    static final String TRAJ = "src/test/resources/shared-data/swe_agent/marshmallow-1867.traj";
    private static Tokenizer cl100k;

    @TempDir
    Path dir;

    @BeforeAll static void load() {
        cl100k = Tokenizers.load("cl100k_base");
    }

    /** {@code n} trajectories in the SWE-smith-trajectories shape: 'messages' as a JSON string (odd lines) or array. */
    private Path fixture(int n) throws Exception {
        SplittableRandom rng = new SplittableRandom(5);
        PromptSynthesizer synth = new PromptSynthesizer(cl100k);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            ArrayNode messages = JsonNodeFactory.instance.arrayNode();
            messages.addObject().put("role", "system").put("content", "You are a coding agent.");
            messages.addObject().put("role", "user").put("content", "Fix issue " + i + ": " + synth.randomText(150, rng));
            int tools = 3 + rng.nextInt(6);
            for (int k = 0; k < tools; k++) {
                messages.addObject().put("role", "assistant").put("content", "running a command");
                ObjectNode tool = messages.addObject().put("role", "tool");
                ArrayNode parts = tool.putArray("content"); // list content: text parts joined with newlines
                parts.addObject().put("type", "text").put("text", "OBSERVATION:");
                parts.addObject().put("type", "text").put("text", synth.randomText(40 + rng.nextInt(300), rng));
            }
            ObjectNode row = JsonNodeFactory.instance.objectNode().put("instance_id", "repo-" + i);
            if (i % 2 == 0) row.put("messages", messages.toString());
            else row.set("messages", messages);
            sb.append(row).append('\n');
        }
        Path f = dir.resolve("trajectories.jsonl");
        Files.writeString(f, sb.toString());
        return f;
    }

    private static SweSmithBuilder.Settings settings(int number, long seed, int workers) {
        return new SweSmithBuilder.Settings(new SweSmithBuilder.Range(200, 260), new SweSmithBuilder.Range(50, 80), 2, 4,
                number, seed, 1.0, workers);
    }

    private byte[] buildFile(Path input, long seed, int workers) throws Exception {
        SweSmithBuilder b = new SweSmithBuilder(cl100k, settings(10, seed, workers));
        SweSmithBuilder.Result r = b.build(TrajectoryReader.read(input.toString()), 0, n -> {});
        Path out = dir.resolve("out-" + seed + "-" + workers + ".json");
        SweSmithFile.write(out, Map.of("seed", seed), r.conversations());
        return Files.readAllBytes(out);
    }

    @Test void sameSeedSameFileWhateverTheWorkers() throws Exception {
        Path input = fixture(16);
        byte[] a = buildFile(input, 42, 1);
        assertThat(buildFile(input, 42, 1)).isEqualTo(a);
        assertThat(buildFile(input, 42, 3)).isEqualTo(a);
        assertThat(buildFile(input, 43, 1)).isNotEqualTo(a);
    }

    @Test void turnsHitTheirTargetsAndFollowTheRules() throws Exception {
        Path input = fixture(16);
        List<Trajectory> all = TrajectoryReader.read(input.toString());
        assertThat(all.get(0).userContents().get(1)).startsWith("OBSERVATION:\n"); // tool -> user, parts joined
        SweSmithBuilder b = new SweSmithBuilder(cl100k, settings(10, 7, 2));
        SweSmithBuilder.Result r = b.build(all, 0, n -> {});
        assertThat(r.conversations()).hasSize(10);
        assertThat(r.tried()).isEqualTo(10 + r.discarded());
        for (SweSmithBuilder.Built c : r.conversations()) {
            assertThat(c.turns().size()).isBetween(2, 4);
            assertThat(c.turns().get(0).targetTokens()).isBetween(200, 260);
            int prompt = 0;
            for (SweSmithBuilder.BuiltTurn t : c.turns()) {
                int counted = 0;
                for (String m : t.userMessages()) counted += cl100k.count(m);
                assertThat(t.newTokens()).isEqualTo(counted);
                prompt += counted;
                assertThat(t.promptTokens()).isEqualTo(prompt);
            }
            for (int k = 1; k < c.turns().size(); k++) {
                assertThat(c.turns().get(k).targetTokens()).isBetween(50, 80)
                        .isEqualTo(c.turns().get(1).targetTokens()); // one draw per conversation
            }
            // every turn but a trajectory's very last messages reaches its target exactly
            for (SweSmithBuilder.BuiltTurn t : c.turns()) assertThat(t.newTokens()).isEqualTo(t.targetTokens());
        }
        // as a dataset: the same turns, user deltas, lengths recorded
        List<Turn> turns = r.conversations().get(0).toTurns();
        assertThat(turns.get(0).messages().get(0).get("role").asText()).isEqualTo("user");
        assertThat(turns.get(0).actualTokens()).isEqualTo(r.conversations().get(0).turns().get(0).newTokens());
    }

    @Test void preFilterDropsShortTrajectoriesAndPrebuiltFilesRotate() throws Exception {
        Path input = fixture(6);
        SweSmithBuilder.Settings huge = new SweSmithBuilder.Settings(new SweSmithBuilder.Range(100_000, 100_000),
                new SweSmithBuilder.Range(1, 1), 1, null, 1, 1, 3.0, 1);
        assertThat(huge.minChars()).isEqualTo(300_000);
        assertThat(new SweSmithBuilder(cl100k, huge).candidates(TrajectoryReader.read(input.toString()), 0)).isEmpty();

        SweSmithBuilder.Result r = new SweSmithBuilder(cl100k, settings(4, 1, 1))
                .build(TrajectoryReader.read(input.toString()), 0, n -> {});
        Path file = dir.resolve("agentic_dataset.json");
        SweSmithFile.write(file, Map.of(), r.conversations());
        MultiTurnOptions o0 = new MultiTurnOptions(new DatasetOptions(file.toString(), 0, 0, 1, 0, null, true, 0), 1, null, null);
        MultiTurnOptions o1 = new MultiTurnOptions(new DatasetOptions(file.toString(), 1, 0, 1, 0, null, true, 0), 1, null, null);
        List<Conversation> a = new SweSmithDataset().load(o0, 10);
        List<Conversation> b = new SweSmithDataset().load(o1, 10);
        assertThat(a).hasSize(4);
        assertThat(b.get(0).turns().get(0).firstUserText()).isEqualTo(a.get(1).turns().get(0).firstUserText());
        assertThat(b.get(3).source()).isEqualTo(a.get(0).source());
        assertThat(a.get(0).turns().get(0).targetTokens()).isBetween(200, 260);
    }

    @Test void liveModeBuildsWithTheSameCode() throws Exception {
        Path input = fixture(8);
        var args = JsonNodeFactory.instance.objectNode().put(SweSmithDataset.INPUT_ARG, input.toString())
                .put("chars_per_token", 1.0);
        args.putArray("first_turn_length").add(200).add(260);
        args.putArray("subsequent_turn_length").add(50).add(80);
        MultiTurnOptions o = new MultiTurnOptions(new DatasetOptions(null, 0, 0, 1, 0, cl100k, true, 7), 2, 4, args);
        List<Conversation> live = new SweSmithDataset().load(o, 3);
        SweSmithBuilder.Result built = new SweSmithBuilder(cl100k, new SweSmithBuilder.Settings(
                new SweSmithBuilder.Range(200, 260), new SweSmithBuilder.Range(50, 80), 2, 4, 3, 7, 1.0, 1))
                .build(TrajectoryReader.read(input.toString()), 0, n -> {});
        assertThat(live).hasSize(3);
        assertThat(live.get(2).turns().get(1).firstUserText())
                .isEqualTo(built.conversations().get(2).turns().get(1).userMessages().get(0));
    }

    @Test void theSweAgentSampleBuilds() throws Exception {
        List<Trajectory> t = TrajectoryReader.read(TRAJ);
        assertThat(t).hasSize(1);
        assertThat(t.get(0).userContents()).hasSize(12); // 1 user + 11 tool messages of the history
        SweSmithBuilder.Settings s = new SweSmithBuilder.Settings(new SweSmithBuilder.Range(2000, 2000),
                new SweSmithBuilder.Range(500, 500), 4, null, 1, 42, 3.0, 1);
        SweSmithBuilder.Result r = new SweSmithBuilder(cl100k, s).build(t, 0, n -> {});
        assertThat(r.conversations()).hasSize(1);
        // its user and tool messages hold about 3,244 tokens: the fourth turn runs out of messages part way and is
        // kept short, as the reference's collect_until does (a candidate is dropped only when a turn gets nothing)
        assertThat(r.conversations().get(0).turns()).extracting(SweSmithBuilder.BuiltTurn::newTokens)
                .containsExactly(2000, 500, 500, 244);
        SweSmithBuilder.Settings five = new SweSmithBuilder.Settings(new SweSmithBuilder.Range(2000, 2000),
                new SweSmithBuilder.Range(500, 500), 5, null, 1, 42, 3.0, 1);
        SweSmithBuilder.Result none = new SweSmithBuilder(cl100k, five).build(t, 0, n -> {});
        assertThat(none.conversations()).isEmpty();
        assertThat(none.discarded()).isEqualTo(1);
    }

    @Test void malformedTrajectoriesNameTheLine() throws Exception {
        Path jsonl = dir.resolve("bad.jsonl");
        Files.writeString(jsonl, "{\"messages\": []}\n\n{\"messages\": \"[{\\\"role\\\": 1}]\"}\n");
        assertThatThrownBy(() -> TrajectoryReader.read(jsonl.toString())).isInstanceOf(BadInputException.class)
                .hasMessageEndingWith("bad.jsonl:3: field 'messages[0].role': missing or not a string");
        Files.writeString(jsonl, "{\"messages\": []}\n{\"messages\": \"[oops\"}\n");
        assertThatThrownBy(() -> TrajectoryReader.read(jsonl.toString())).isInstanceOf(BadInputException.class)
                .hasMessageContaining("bad.jsonl:2: field 'messages': a string that is not valid JSON");
        Files.writeString(jsonl, "{\"id\": 1}\n");
        assertThatThrownBy(() -> TrajectoryReader.read(jsonl.toString())).isInstanceOf(BadInputException.class)
                .hasMessageEndingWith("bad.jsonl:1: field 'messages': missing (nor 'history')");
        Path traj = dir.resolve("broken.traj");
        Files.writeString(traj, "{\n  \"history\": [\n    {\"role\": \"user\", \"content\": \"x\"},\n    oops\n  ]\n}\n");
        assertThatThrownBy(() -> TrajectoryReader.read(traj.toString())).isInstanceOf(BadInputException.class)
                .hasMessageContaining("broken.traj:4: not valid JSON");
        Files.writeString(traj, "{\"history\": [{\"role\": \"tool\", \"content\": 5}]}");
        assertThatThrownBy(() -> TrajectoryReader.read(traj.toString())).isInstanceOf(BadInputException.class)
                .hasMessageEndingWith("broken.traj: field 'history[0].content': expected a string or a list of parts, got a number");
    }
}
