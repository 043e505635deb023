package io.unibench.client;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Hands the bytes of a {@link ByteBuf} to code that parses arrays: a heap buffer's own array as it is, a direct
 * buffer (what the native epoll transport reads into) copied in pieces into a scratch array of the calling thread.
 * One {@code memcpy} per read is far cheaper than scanning through {@link ByteBuf}'s per-byte accessors (10× per
 * request, measured: bench/HISTORY.md), so the client's HTTP and SSE parsers only ever see arrays, and this is the one
 * place a read is copied.
 */
public final class ByteBufArrays {

    /** Receives one piece: {@code length} bytes of {@code bytes} from {@code offset}, valid only during the call. */
    @FunctionalInterface
    public interface Sink {
        void accept(byte[] bytes, int offset, int length);
    }

    /** One per event-loop thread: 64 KiB, the largest read Netty's adaptive allocator usually makes. */
    private static final class Scratch {
        static final int BYTES = 64 * 1024;
        final byte[] bytes = new byte[BYTES];
        boolean busy;
    }

    private static final FastThreadLocal<Scratch> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected Scratch initialValue() {
            return new Scratch();
        }
    };

    private ByteBufArrays() {
    }

    /** Hands {@code length} bytes of {@code buf} from {@code index} to {@code sink}, in order; indices unchanged. */
    public static void forEachPiece(ByteBuf buf, int index, int length, Sink sink) {
        if (buf.hasArray()) {
            sink.accept(buf.array(), buf.arrayOffset() + index, length);
            return;
        }
        Scratch scratch = SCRATCH.get();
        // a sink that copies another buffer on this thread (none does today) gets a private array
        boolean owner = !scratch.busy;
        byte[] piece = owner ? scratch.bytes : new byte[Math.min(length, Scratch.BYTES)];
        scratch.busy = true;
        try {
            for (int done = 0; done < length; ) {
                int n = Math.min(piece.length, length - done);
                copy(buf, index + done, piece, n);
                sink.accept(piece, 0, n);
                done += n;
            }
        } finally {
            if (owner) scratch.busy = false;
        }
    }

    private static void copy(ByteBuf buf, int index, byte[] to, int n) {
        if (buf.nioBufferCount() == 1) {
            // the buffer's cached NIO view: getBytes would make a new duplicate of it for every copy
            buf.internalNioBuffer(index, n).get(to, 0, n);
        } else {
            buf.getBytes(index, to, 0, n);
        }
    }
}
