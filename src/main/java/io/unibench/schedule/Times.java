package io.unibench.schedule;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** Moments as messages and tables show them. */
public final class Times {
    private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private Times() {}

    /** {@code 2026-12-01 02:00:00 UTC}. */
    public static String utc(long epochMillis) {
        return MINUTE.format(Instant.ofEpochMilli(epochMillis).atZone(ZoneId.of("UTC"))) + " UTC";
    }

    /** In the zone given: {@code 2026-12-01 10:00:00 Asia/Shanghai}. */
    public static String in(long epochMillis, ZoneId zone) {
        return MINUTE.format(Instant.ofEpochMilli(epochMillis).atZone(zone)) + " " + zone.getId();
    }
}
