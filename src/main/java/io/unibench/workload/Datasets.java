package io.unibench.workload;

import io.unibench.BadInputException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The datasets {@code --dataset NAME} can name. Adding one is one line in {@link #FACTORIES}: a name and the
 * constructor of a class implementing {@link Dataset}.
 */
public final class Datasets {
    private static final Map<String, Supplier<Dataset>> FACTORIES = factories();

    private Datasets() {}

    private static Map<String, Supplier<Dataset>> factories() {
        Map<String, Supplier<Dataset>> m = new LinkedHashMap<>(); // insertion order is the order users see
        m.put(RandomDataset.NAME, RandomDataset::new);
        m.put(LineByLineDataset.NAME, LineByLineDataset::new);
        m.put(CustomDataset.NAME, CustomDataset::new);
        m.put(OpenQaDataset.NAME, OpenQaDataset::new);
        return java.util.Collections.unmodifiableMap(m);
    }

    /** A new instance of the dataset called {@code name}; an unknown name is a {@link BadInputException}. */
    public static Dataset byName(String name) {
        Supplier<Dataset> factory = name == null ? null : FACTORIES.get(name);
        if (factory == null) {
            throw new BadInputException("unknown dataset '" + name + "'; known: " + String.join(", ", names()));
        }
        return factory.get();
    }

    /** Every known name, in the order they are listed to users. */
    public static List<String> names() {
        return List.copyOf(FACTORIES.keySet());
    }
}
