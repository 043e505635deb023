package io.unibench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The benchmarks under {@code bench/} are run by hand as single source files ({@code java -cp target/unibench.jar
 * bench/…/X.java}), so nothing else compiles them: a changed main-code signature (a new {@code RequestRecord}
 * component) broke one unnoticed. Each is compiled here alone, as the source launcher does, against the test
 * classpath (the main classes and every dependency the jar holds). Runs none of them. {@code bench/jmh} is a
 * Maven project of its own and is not covered.
 */
class BenchSourcesCompileTest {

    @Test
    void everySourceLaunchedBenchmarkCompiles(@TempDir Path out) throws IOException {
        List<Path> sources;
        try (Stream<Path> walk = Files.walk(Path.of("bench"))) {
            sources = walk.filter(p -> p.toString().endsWith(".java") && !p.startsWith(Path.of("bench", "jmh")))
                    .sorted().toList();
        }
        assertThat(sources).as("bench/**/*.java").isNotEmpty();
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> failures = new ArrayList<>();
        for (Path source : sources) {
            StringWriter diagnostics = new StringWriter();
            Path classes = Files.createDirectories(out.resolve(source.getFileName().toString()));
            boolean ok = javac.getTask(diagnostics, null, null,
                    List.of("--release", "21", "-proc:none", "-nowarn", "-Xlint:none",
                            "-classpath", System.getProperty("java.class.path"), "-d", classes.toString()),
                    null, javac.getStandardFileManager(null, null, null).getJavaFileObjects(source)).call();
            if (!ok) failures.add(source + ":\n" + diagnostics);
        }
        assertThat(failures).as("bench sources that no longer compile").isEmpty();
    }
}
