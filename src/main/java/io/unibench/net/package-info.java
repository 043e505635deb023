/** Sockets shared by the client and the simulator: which Netty transport and TLS provider this machine runs on. */
package io.unibench.net;
