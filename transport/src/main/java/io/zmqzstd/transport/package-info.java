/** zmq-zstd transport. */
package io.zmqzstd.transport;
