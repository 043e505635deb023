package io.unibench.importer;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.store.ImportedRun;

import java.util.List;
import java.util.Map;

/**
 * One run read from another tool's files, before it is stored.
 *
 * @param version the tool's version when its files say it, else null (not recorded)
 * @param files   each file read → its SHA-256
 * @param args    the tool's own arguments or metadata as it wrote them (the stored run's configuration), or null
 * @param lacks   what the source did not measure or keep (shown with the run; its figures are absent, not zero)
 */
public record Foreign(ForeignFormat format, String version, Map<String, Object> files, JsonNode args,
                      List<String> lacks, List<ImportedRun.Point> points, long startedAtMillis) {
    public Foreign {
        lacks = List.copyOf(lacks);
        points = List.copyOf(points);
    }
}
