/** zmq-zstd codec. */
package io.zmqzstd.codec;
