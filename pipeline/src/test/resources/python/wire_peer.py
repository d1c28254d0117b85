"""A zmq-zstd peer written only from the wire format in pipeline/README.md: pyzmq + python-zstandard.

Usage:
  wire_peer.py send ENDPOINT PAYLOAD_DIR [DICT_FILE]   PUSH: every file in PAYLOAD_DIR (sorted) becomes one
                                                        message; files named *-a / *-b of one stem are two parts
  wire_peer.py recv ENDPOINT PAYLOAD_DIR [DICT_FILE]   PULL: expects those messages, checks every part
  wire_peer.py sub  ENDPOINT TOPIC PAYLOAD_DIR          SUB: expects [topic][frame] for each file
  wire_peer.py pub  ENDPOINT TOPIC PAYLOAD_DIR          XPUB: waits for a subscription, then sends [other][frame]
                                                        and [TOPIC][frame] for each file (first parts only)
  wire_peer.py shapes ENDPOINT PAYLOAD_DIR LIMIT        PUSH: each file's first part in the seven valid shapes of
                                                        frame_shapes(), then each message of bad_messages(LIMIT)
                                                        followed by a good one, then [empty delimiter][frame]
  wire_peer.py dealer ENDPOINT PAYLOAD_DIR              DEALER: sends each message, expects it back compressed
  wire_peer.py req  ENDPOINT PAYLOAD_DIR                REQ: sends each first part, expects it back compressed
Prints "ok N" and exits 0 when every message matched; prints the mismatch and exits 1 otherwise.
"""
import os
import sys

import zmq
import zstandard


def messages(payload_dir):
    """Sorted stems; each stem is a list of part files (stem-a, stem-b, ...) in order."""
    stems = {}
    for name in sorted(os.listdir(payload_dir)):
        stem, _, _ = name.rpartition("-")
        with open(os.path.join(payload_dir, name), "rb") as f:
            stems.setdefault(stem, []).append(f.read())
    return [stems[k] for k in sorted(stems)]


def dictionary(path):
    if path is None:
        return None
    with open(path, "rb") as f:
        return zstandard.ZstdCompressionDict(f.read())


def check_frame(frame, expected, where, raw_below=0):
    """A payload part is one frame with its content size; payloads shorter than raw_below must be raw blocks."""
    if len(frame) < 9:
        fail(f"{where}: part of {len(frame)} bytes, a frame is at least 9 (an empty payload is a frame too)")
    params = zstandard.get_frame_parameters(frame)
    if params.content_size != len(expected):
        fail(f"{where}: content size in header={params.content_size}, payload={len(expected)}")
    types, end = block_types(frame)
    if end != len(frame):
        fail(f"{where}: frame ends at {end}, part is {len(frame)} bytes (one frame per part)")
    if len(expected) < raw_below and set(types) != {0}:
        fail(f"{where}: payload of {len(expected)} bytes in blocks of types {types}, expected raw blocks (0)")


# RFC 8878 3.1.1: FHD bits 7-6 content-size flag, 5 single segment, 2 checksum, 1-0 dictionary-ID flag.
DID_BYTES = (0, 1, 2, 4)
FCS_BYTES = (0, 2, 4, 8)
BLOCK_MAX = 128 * 1024
WINDOW_128K = 7 << 3  # window descriptor: 2^(10 + 7)


def block_types(frame):
    """The block types (0 raw, 1 RLE, 2 compressed) of the one frame at the start, and where it ends."""
    fhd = frame[4]
    single = fhd & 0x20
    fcs = FCS_BYTES[fhd >> 6] or (1 if single else 0)
    at = 5 + (0 if single else 1) + DID_BYTES[fhd & 3] + fcs
    types = []
    while True:
        header = int.from_bytes(frame[at:at + 3], "little")
        kind, size = (header >> 1) & 3, header >> 3
        types.append(kind)
        at += 3 + (1 if kind == 1 else size)
        if header & 1:
            break
    return types, at + (4 if fhd & 4 else 0)


def raw_frame(data, single_segment=True, content_size=True, block=BLOCK_MAX, dict_id=0):
    """A frame of raw blocks written by hand from RFC 8878: no compressor involved."""
    did = b"" if dict_id == 0 else dict_id.to_bytes(4, "little")
    if not content_size:
        fcs_flag, fcs = 0, b""
    elif single_segment and len(data) < 256:
        fcs_flag, fcs = 0, bytes([len(data)])  # 1 byte, only with single segment
    elif 256 <= len(data) < 65536 + 256:
        fcs_flag, fcs = 1, (len(data) - 256).to_bytes(2, "little")
    else:
        fcs_flag, fcs = 3, len(data).to_bytes(8, "little")
    fhd = fcs_flag << 6 | (0x20 if single_segment else 0) | (3 if did else 0)
    out = bytearray(zstandard.FRAME_HEADER + bytes([fhd]))
    if not single_segment:
        out.append(WINDOW_128K)
    out += did + fcs
    chunks = [data[i:i + block] for i in range(0, len(data), block)] or [b""]
    for i, chunk in enumerate(chunks):
        last = 1 if i == len(chunks) - 1 else 0
        out += (len(chunk) << 3 | last).to_bytes(3, "little") + chunk
    return bytes(out)


def streamed(payload, level):
    """A frame as a streaming compressor writes it: no content size, a window set by the level alone."""
    c = zstandard.ZstdCompressor(level=level).compressobj()
    return c.compress(payload) + c.flush()


def frame_shapes(payload):
    """Seven valid ways to put one payload part on the wire; the receiver must read each."""
    return [
        streamed(payload, 19),                                                        # size unknown, 8 MiB window
        zstandard.ZstdCompressor(level=3).compress(payload),                          # content size set
        zstandard.ZstdCompressor(level=3, write_content_size=False).compress(payload),  # size unknown
        zstandard.ZstdCompressor(level=3, write_checksum=True).compress(payload),      # checksum
        raw_frame(payload),                                                           # raw blocks, single segment
        raw_frame(payload, single_segment=False, block=1000),                         # window, many small raw blocks
        raw_frame(payload, single_segment=False, content_size=False),                 # raw blocks, size unknown
    ]


def bad_messages(limit_bytes):
    """Messages the receiver must refuse, in this order (reason: what the README's Errors section says)."""
    good = zstandard.ZstdCompressor(level=3).compress(b"good" * 100)
    skippable = (0x184D2A50).to_bytes(4, "little") + (3).to_bytes(4, "little") + b"abc"
    checked = zstandard.ZstdCompressor(level=3, write_checksum=True).compress(b"checked" * 100)
    return [
        [b""],                                                             # EMPTY: a 0-byte payload part
        [good + good],                                                     # CORRUPT: a second frame behind the first
        [good + b"\0"],                                                    # CORRUPT: trailing bytes
        [skippable + good],                                                # NOT_ZSTD: a part that starts with a skippable frame
        [b"not zstd at all"],                                              # NOT_ZSTD
        [good[:-1]],                                                       # TRUNCATED: cut inside its block
        [good[:2]],                                                        # TRUNCATED: cut inside the magic number
        [raw_frame(b"abc", dict_id=0x7A7A7A7A)],                           # DICTIONARY_MISSING: unknown ID
        [zstandard.ZstdCompressor(level=3).compress(bytes(limit_bytes + 1))],  # TOO_LARGE: declared over the limit
        [streamed(b"small", 20)],                                          # TOO_LARGE: no size, a 32 MiB window over 2^23
        [streamed(bytes(limit_bytes + 1), 3)],                             # TOO_LARGE: no size, outgrows the limit
        [checked[:-1] + bytes([checked[-1] ^ 1])],                         # CHECKSUM: content checksum does not match
        [good, b""],                                                       # EMPTY at part 1: an abandoned message
        [b"", b""],                                                        # EMPTY at part 1: a delimiter, then nothing
    ]


def fail(text):
    print(text, flush=True)
    sys.exit(1)


def main():
    mode, endpoint = sys.argv[1], sys.argv[2]
    ctx = zmq.Context()
    if mode == "send":
        payload_dir = sys.argv[3]
        d = dictionary(sys.argv[4] if len(sys.argv) > 4 else None)
        c = zstandard.ZstdCompressor(level=3, dict_data=d) if d else zstandard.ZstdCompressor(level=3)
        s = ctx.socket(zmq.PUSH)
        s.setsockopt(zmq.LINGER, 10000)
        s.connect(endpoint)
        msgs = messages(payload_dir)
        for parts in msgs:
            s.send_multipart([c.compress(p) for p in parts])
        s.close()
        print(f"ok {len(msgs)}", flush=True)
    elif mode == "recv":
        payload_dir = sys.argv[3]
        # Our sender's default: payloads under 128 bytes go out as raw-block frames (not with a dictionary)
        raw_below = int(os.environ.get("RAW_BELOW", "128"))
        d = dictionary(sys.argv[4] if len(sys.argv) > 4 else None)
        dec = zstandard.ZstdDecompressor(dict_data=d) if d else zstandard.ZstdDecompressor()
        s = ctx.socket(zmq.PULL)
        s.setsockopt(zmq.RCVTIMEO, 20000)
        s.connect(endpoint)
        msgs = messages(payload_dir)
        for i, parts in enumerate(msgs):
            got = s.recv_multipart()
            if len(got) != len(parts):
                fail(f"message {i}: parts={len(got)}, expected={len(parts)}")
            for j, (frame, expected) in enumerate(zip(got, parts)):
                check_frame(frame, expected, f"message {i} part {j}", 0 if d is not None else raw_below)
                if d is not None and zstandard.get_frame_parameters(frame).dict_id != d.dict_id():
                    fail(f"message {i} part {j}: dict_id={zstandard.get_frame_parameters(frame).dict_id}")
                if dec.decompress(frame) != expected:
                    fail(f"message {i} part {j}: payload differs")
        print(f"ok {len(msgs)}", flush=True)
    elif mode == "sub":
        topic, payload_dir = sys.argv[3].encode(), sys.argv[4]
        dec = zstandard.ZstdDecompressor()
        s = ctx.socket(zmq.SUB)
        s.setsockopt(zmq.RCVTIMEO, 20000)
        s.setsockopt(zmq.SUBSCRIBE, topic)
        s.connect(endpoint)
        msgs = messages(payload_dir)
        for i, parts in enumerate(msgs):
            got = s.recv_multipart()
            if len(got) != 2 or got[0] != topic:
                fail(f"message {i}: expected [topic][frame], got {len(got)} parts starting {got[0][:20]!r}")
            check_frame(got[1], parts[0], f"message {i}", 128)
            if dec.decompress(got[1]) != parts[0]:
                fail(f"message {i}: payload differs")
        print(f"ok {len(msgs)}", flush=True)
    elif mode == "pub":
        topic, payload_dir = sys.argv[3].encode(), sys.argv[4]
        c = zstandard.ZstdCompressor(level=3)
        s = ctx.socket(zmq.XPUB)
        s.setsockopt(zmq.LINGER, 10000)
        s.setsockopt(zmq.RCVTIMEO, 20000)
        s.connect(endpoint)
        subscription = s.recv()  # 0x01 + topic: the subscriber is there, nothing sent is lost
        expected = b"\x01" + topic
        if subscription != expected:
            fail(f"subscription={subscription!r}, expected={expected!r}")
        msgs = messages(payload_dir)
        for parts in msgs:
            s.send_multipart([b"other." + topic, c.compress(parts[0])])  # filtered out by the subscriber
            s.send_multipart([topic, c.compress(parts[0])])               # the topic is never compressed
        s.close()
        print(f"ok {len(msgs)}", flush=True)
    elif mode == "shapes":
        payload_dir, limit_bytes = sys.argv[3], int(sys.argv[4])
        s = ctx.socket(zmq.PUSH)
        s.setsockopt(zmq.LINGER, 10000)
        s.connect(endpoint)
        msgs = messages(payload_dir)
        sent = 0
        for parts in msgs:
            for frame in frame_shapes(parts[0]):
                s.send(frame)
                sent += 1
        for bad in bad_messages(limit_bytes):
            s.send_multipart(bad)
            s.send(zstandard.ZstdCompressor(level=3).compress(b"after"))  # the stream goes on
            sent += 2
        s.send_multipart([b"", zstandard.ZstdCompressor(level=3).compress(b"behind a delimiter")])
        s.close()
        print(f"ok {sent + 1}", flush=True)
    elif mode in ("dealer", "req"):
        payload_dir = sys.argv[3]
        c = zstandard.ZstdCompressor(level=3)
        dec = zstandard.ZstdDecompressor()
        s = ctx.socket(zmq.DEALER if mode == "dealer" else zmq.REQ)
        s.setsockopt(zmq.LINGER, 10000)
        s.setsockopt(zmq.RCVTIMEO, 20000)
        s.connect(endpoint)
        msgs = messages(payload_dir)
        for i, parts in enumerate(msgs):
            parts = parts if mode == "dealer" else parts[:1]  # REQ: libzmq adds and strips the delimiter
            s.send_multipart([c.compress(p) for p in parts])
            got = s.recv_multipart()
            if len(got) != len(parts):
                fail(f"reply {i}: parts={len(got)}, expected={len(parts)}")
            for j, (frame, expected) in enumerate(zip(got, parts)):
                check_frame(frame, expected, f"reply {i} part {j}", 128)
                if dec.decompress(frame) != expected:
                    fail(f"reply {i} part {j}: payload differs")
        s.close()
        print(f"ok {len(msgs)}", flush=True)
    else:
        fail(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
