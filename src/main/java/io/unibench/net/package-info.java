/** Sockets shared by the client and the simulator: which Netty transport this machine runs on. */
package io.unibench.net;
