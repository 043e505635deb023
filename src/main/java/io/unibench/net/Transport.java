package io.unibench.net;

import io.unibench.BadInputException;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.util.Locale;

/**
 * The socket transport the client and the simulator run on. Linux's native epoll when its library loads: a small
 * SSE read then costs one {@code read(2)} and no JDK selector bookkeeping (the selected-key set, the channel's
 * read lock, the temporary direct buffer the JDK copies heap reads through). Elsewhere the JDK's NIO.
 *
 * <p>{@code -Dunibench.transport=nio} forces NIO (to compare the two, or to get around a broken native library);
 * {@code =epoll} fails loudly when epoll cannot load instead of falling back.
 */
public enum Transport {
    EPOLL, NIO;

    /** The system property that overrides the choice: {@code nio}, {@code epoll} or {@code auto} (the default). */
    public static final String PROPERTY = "unibench.transport";

    /**
     * The transport to use now (read at each client or simulator start, so a bad value is reported as bad input
     * by the command that needs it, not as a class-initialisation failure).
     *
     * @throws BadInputException when the property names no transport, or epoll where it cannot load
     */
    public static Transport best() {
        return choose(System.getProperty(PROPERTY, "auto"));
    }

    static Transport choose(String wanted) {
        return switch (wanted.toLowerCase(Locale.ROOT)) {
            case "nio" -> NIO;
            case "epoll" -> {
                if (!Epoll.isAvailable()) {
                    throw new BadInputException("-D" + PROPERTY + "=epoll but epoll is unavailable here: "
                            + Epoll.unavailabilityCause());
                }
                yield EPOLL;
            }
            case "auto", "" -> Epoll.isAvailable() ? EPOLL : NIO;
            default -> throw new BadInputException(
                    "-D" + PROPERTY + " must be auto, epoll or nio, got " + wanted);
        };
    }

    public IoHandlerFactory ioHandlerFactory() {
        return this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    public Class<? extends SocketChannel> socketChannel() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    public Class<? extends ServerSocketChannel> serverSocketChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
