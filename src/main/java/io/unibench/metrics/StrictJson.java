package io.unibench.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The guard every JSON writer of ours (report files, the run history) passes its value tree through. */
public final class StrictJson {
    private StrictJson() {}

    /**
     * A copy of a tree of maps/lists with every non-finite double replaced by null: the last guard that keeps
     * NaN (which evalscope writes bare, making the file invalid JSON) out of our files.
     */
    public static Object strict(Object value) {
        if (value instanceof Double d) return Double.isFinite(d) ? d : null;
        if (value instanceof Float f) return Float.isFinite(f) ? f : null;
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> out = new LinkedHashMap<>();
            map.forEach((k, v) -> out.put(k, strict(v)));
            return out;
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (Object v : list) out.add(strict(v));
            return out;
        }
        return value;
    }
}
