package io.unibench.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import java.util.Map;

/**
 * YAML anchors, aliases and merge keys in a scenario file mean what YAML says: {@code model: *mod} is the anchored
 * model, not the string "mod" (Jackson's streaming parser gives an alias as its anchor's name); an alias with no
 * anchor before it, a merge key on something that is not a mapping, and an exponential alias bomb are refused with
 * a located line.
 */
class YamlAliasesTest {
    private static final Map<String, String> ENV = Map.of();

    @Test
    void anAliasOfAScalarIsTheAnchoredValue() {
        BenchConfig c = ScenarioFile.parse("bench.yaml", """
                providers:
                  - {name: a, base_url: sim, model: &mod qwen-plus}
                  - {name: b, base_url: sim, model: *mod}
                scenarios:
                  - {name: s, type: chat, prompt: hi, rounds: &n 3}
                  - {name: t, type: chat, prompt: ho, rounds: *n}
                """, ENV);
        assertThat(c.providers()).extracting(BenchConfig.Provider::model).containsExactly("qwen-plus", "qwen-plus");
        assertThat(c.scenarios()).extracting(BenchConfig.Scenario::rounds).containsExactly(3, 3);
    }

    @Test
    void anAliasOfAMappingAndMergeKeysCopyTheAnchoredMapping() {
        BenchConfig c = ScenarioFile.parse("bench.yaml", """
                providers:
                  - &first
                    name: a
                    base_url: sim
                    model: qwen-plus
                    headers: {X-Team: bench}
                  - <<: *first
                    name: b
                    model: qwen-max
                scenarios:
                  - {name: s, type: chat, prompt: hi, rounds: 2}
                """, ENV);
        assertThat(c.providers()).extracting(BenchConfig.Provider::name).containsExactly("a", "b");
        // an explicit key wins over the merged one
        assertThat(c.providers()).extracting(BenchConfig.Provider::model).containsExactly("qwen-plus", "qwen-max");
        assertThat(c.providers()).allSatisfy(p -> assertThat(p.headers()).containsEntry("X-Team", "bench"));

        BenchConfig same = ScenarioFile.parse("bench.yaml", """
                provider: {name: a, base_url: sim, model: qwen-plus}
                scenarios:
                  - &chat {name: s, type: chat, prompt: hi, rounds: 2}
                  - <<: [{name: t}, *chat]
                """, ENV);
        // the first merged mapping wins: name t, the rest from *chat
        assertThat(same.scenarios()).extracting(BenchConfig.Scenario::name).containsExactly("s", "t");
        assertThat(same.scenarios().get(1).prompt()).isEqualTo("hi");
    }

    @Test
    void aValueFromAnAliasIsLocatedAtTheAlias() {
        assertThatThrownBy(() -> ScenarioFile.parse("bench.yaml", """
                provider: {name: &bad a, base_url: sim, model: m}
                scenarios:
                  - {name: t, type: chat, prompt: hi}
                  - {name: s, type: chat, prompt: hi,
                     rounds: *bad}
                """, ENV)).isInstanceOf(ScenarioProblems.class)
                .hasMessage("bench.yaml:5: scenarios[1].rounds: must be an integer, got a string (\"a\")");
    }

    @Test
    void anAliasWithoutItsAnchorIsRefusedWithItsLine() {
        assertThatThrownBy(() -> ScenarioFile.parse("bench.yaml", """
                provider:
                  name: a
                  base_url: sim
                  model: *mod
                scenarios:
                  - {name: s, type: chat, prompt: hi}
                """, ENV)).isInstanceOf(ScenarioProblems.class)
                .hasMessage("bench.yaml:4: alias *mod has no anchor &mod before it");
    }

    @Test
    void aMergeKeyOnAScalarIsRefusedWithItsLine() {
        assertThatThrownBy(() -> ScenarioFile.parse("bench.yaml", """
                provider:
                  name: a
                  <<: sim
                  model: m
                scenarios:
                  - {name: s, type: chat, prompt: hi}
                """, ENV)).isInstanceOf(ScenarioProblems.class)
                .hasMessage("bench.yaml:3: provider: the merge key << takes a mapping (<<: *name) or a list of "
                        + "mappings, not a string");
    }

    @Test
    void anAliasBombIsRefusedNotExpanded() {
        StringBuilder doc = new StringBuilder("x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for (int i = 1; i < 10; i++) {
            String prev = "*a" + (i - 1);
            doc.append("x").append(i).append(": &a").append(i).append(" [").append(String.join(", ",
                    java.util.Collections.nCopies(10, prev))).append("]\n");
        }
        assertThatThrownBy(() -> ScenarioFile.parse("bomb.yaml", doc.toString(), ENV))
                .isInstanceOf(ScenarioProblems.class)
                .hasMessageMatching("bomb\\.yaml:\\d+: aliases expand to more than 100000 values");
    }
}
