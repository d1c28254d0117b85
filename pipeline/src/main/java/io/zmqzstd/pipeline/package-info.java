/**
 * Where codec and transport meet: {@link io.zmqzstd.pipeline.CompressingSender} compresses
 * payloads straight into ZeroMQ messages, {@link io.zmqzstd.pipeline.DecompressingReceiver}
 * decompresses them straight out of received ones. Wire layout: {@link io.zmqzstd.pipeline.WireFormat}.
 */
package io.zmqzstd.pipeline;
