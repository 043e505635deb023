package io.unibench.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Per-event cost of the client's hot path on the static 256-token reply (results are per SSE event):
 * SSE framing alone, chunk decoding alone (our streaming reader vs the Jackson tree it replaced), and both
 * together fed from direct ByteBufs in 16 KiB reads as Netty delivers them.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ClientHotPathBench {
    private final ObjectMapper mapper = new ObjectMapper();
    private byte[] sse;
    private byte[] chunk;
    private ByteBuf[] reads;

    @Setup
    public void setup() {
        sse = StaticBody.sse();
        chunk = StaticBody.tokenChunk(7).getBytes(StandardCharsets.UTF_8);
        int size = 16 * 1024;
        int n = (sse.length + size - 1) / size;
        reads = new ByteBuf[n];
        for (int i = 0; i < n; i++) {
            int from = i * size;
            int len = Math.min(size, sse.length - from);
            reads[i] = Unpooled.directBuffer(len).writeBytes(sse, from, len);
        }
    }

    @Benchmark
    @OperationsPerInvocation(StaticBody.EVENTS)
    public void sseFramingOnly(Blackhole bh) {
        SseParser p = new SseParser((byte[] buf, int off, int len) -> bh.consume(len));
        p.feed(sse);
        p.finish();
    }

    @Benchmark
    public Object chunkDecodeStreaming() {
        ChunkInterpreter c = new ChunkInterpreter(mapper);
        c.onEvent(chunk, 0, chunk.length, 1);
        return c;
    }

    @Benchmark
    public JsonNode chunkDecodeTree() throws Exception {
        return mapper.readTree(chunk, 0, chunk.length); // what ChunkInterpreter did before (plus the field reads)
    }

    @Benchmark
    @OperationsPerInvocation(StaticBody.EVENTS)
    public Object wholeReplyFromDirectBuffers() {
        ChunkInterpreter c = new ChunkInterpreter(mapper);
        SseParser p = new SseParser((byte[] buf, int off, int len) -> c.onEvent(buf, off, len, System.nanoTime()));
        for (ByteBuf b : reads) ByteBufArrays.forEachPiece(b, b.readerIndex(), b.readableBytes(), p::feed);
        p.finish();
        if (c.tokenChunkNanos().length != StaticBody.TOKENS) throw new AssertionError("lost tokens");
        return c;
    }
}
