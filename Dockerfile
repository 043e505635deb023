# Uni LLM Bench image: `docker build -t unibench .` then `docker compose up -d` (compose.yaml, docs/scaling.md).
# Stage 1 builds the shaded jar with Maven; stage 2 is a slim JRE 25 (the JDK every figure in bench/ is measured on;
# the jar targets 21) with nothing but the jar, the entrypoint and a
# non-root user. The run history (SQLite by default) lives on the /data volume; point UNIBENCH_DB at PostgreSQL
# (jdbc:postgresql://…) to share it between the platform and sharded runs.
ARG MAVEN_IMAGE=docker.io/library/maven:3.9-eclipse-temurin-25
ARG JRE_IMAGE=docker.io/library/eclipse-temurin:25-jre-noble

FROM ${MAVEN_IMAGE} AS build
WORKDIR /src
# dependencies first: the layer is reused while only sources change
COPY pom.xml ./
COPY .mvn .mvn
RUN mvn -B -ntp -q dependency:go-offline -DskipTests || true
COPY src src
RUN mvn -B -ntp -q -DskipTests package && cp target/unibench.jar /unibench.jar

FROM ${JRE_IMAGE}
# a fixed uid/gid, so a volume or a Kubernetes securityContext (runAsUser: 10001, fsGroup: 10001) can match it
RUN groupadd --system --gid 10001 unibench \
 && useradd --system --uid 10001 --gid unibench --home-dir /data --no-create-home --shell /usr/sbin/nologin unibench \
 && mkdir -p /data /opt/unibench && chown unibench:unibench /data
COPY --from=build /unibench.jar /opt/unibench/unibench.jar
COPY docker/entrypoint.sh /usr/local/bin/unibench-entrypoint
RUN chmod 0755 /usr/local/bin/unibench-entrypoint
ENV UNIBENCH_HOME=/data \
    UNIBENCH_JAR=/opt/unibench/unibench.jar \
    UNIBENCH_PORT=8080
VOLUME ["/data"]
WORKDIR /data
USER 10001:10001
EXPOSE 8080
# /healthz answers 200 without a token; the entrypoint's `healthcheck` asks it over bash's /dev/tcp (no curl needed)
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["unibench-entrypoint", "healthcheck"]
ENTRYPOINT ["unibench-entrypoint"]
CMD ["serve", "--host", "0.0.0.0"]
