package io.unibench.schedule;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.unibench.BadInputException;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * When a schedule fires: a five-field Unix cron expression read in a time zone (cron-utils: DST gaps and overlaps,
 * day-of-month/day-of-week rules), or a fixed interval counted from an anchor (the schedule's creation), so the
 * fire times of an interval do not drift with the time a round takes.
 */
public sealed interface Trigger {
    /** The first fire time strictly after {@code epochMillis}. */
    long nextAfter(long epochMillis);

    /** The next {@code n} fire times strictly after {@code epochMillis}. */
    default List<Long> next(int n, long epochMillis) {
        List<Long> out = new ArrayList<>(n);
        long t = epochMillis;
        for (int i = 0; i < n; i++) {
            t = nextAfter(t);
            out.add(t);
        }
        return out;
    }

    /** How a person reads it: {@code cron "0 2 * * *" (Asia/Shanghai)} or {@code every PT6H}. */
    String describe();

    record Cron(String expression, ZoneId zone, ExecutionTime times) implements Trigger {
        private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

        @Override
        public long nextAfter(long epochMillis) {
            ZonedDateTime from = Instant.ofEpochMilli(epochMillis).atZone(zone);
            return times.nextExecution(from).map(t -> t.toInstant().toEpochMilli())
                    .orElseThrow(() -> new IllegalStateException("cron " + expression + " never fires again"));
        }

        @Override
        public String describe() {
            return "cron \"" + expression + "\" (" + zone.getId() + ")";
        }
    }

    record Every(Duration interval, long anchorMillis) implements Trigger {
        @Override
        public long nextAfter(long epochMillis) {
            long step = interval.toMillis();
            if (epochMillis < anchorMillis) return anchorMillis + step;
            return anchorMillis + ((epochMillis - anchorMillis) / step + 1) * step;
        }

        @Override
        public String describe() {
            return "every " + Durations.format(interval);
        }
    }

    /**
     * A cron expression in a zone (null: the system's), or bad input naming {@code field}: five fields
     * (minute hour day-of-month month day-of-week), e.g. {@code 0 2 * * *} for 02:00 every day.
     */
    static Cron cron(String expression, String zone, String field) {
        ZoneId z;
        try {
            z = zone == null || zone.isBlank() ? ZoneId.systemDefault() : ZoneId.of(zone.strip());
        } catch (DateTimeException e) {
            throw new BadInputException("--tz '" + zone + "': not a time zone (e.g. Asia/Shanghai, UTC, +08:00)");
        }
        String e = expression == null ? "" : expression.strip().replaceAll("\\s+", " ");
        try {
            com.cronutils.model.Cron cron = Cron.PARSER.parse(e);
            cron.validate();
            ExecutionTime times = ExecutionTime.forCron(cron);
            if (times.nextExecution(ZonedDateTime.now(z)).isEmpty()) {
                throw new BadInputException(field + " '" + expression + "': never fires (no such date, e.g. 30 February)");
            }
            return new Cron(e, z, times);
        } catch (IllegalArgumentException bad) {
            throw new BadInputException(field + " '" + expression + "': not a cron expression (five fields: minute "
                    + "hour day-of-month month day-of-week, e.g. \"0 2 * * *\"): " + firstLine(bad.getMessage()));
        }
    }

    /** A fixed interval of at least a minute (shorter rounds would overlap any real benchmark). */
    static Every every(Duration interval, long anchorMillis, String field) {
        if (interval.compareTo(Duration.ofMinutes(1)) < 0) {
            throw new BadInputException(field + " '" + Durations.format(interval) + "': must be at least 1m");
        }
        return new Every(interval, anchorMillis);
    }

    private static String firstLine(String s) {
        return s == null ? "" : s.lines().findFirst().orElse("").strip();
    }
}
