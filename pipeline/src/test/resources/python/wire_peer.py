"""A zmq-zstd peer written only from the wire format in pipeline/README.md: pyzmq + python-zstandard.

Usage:
  wire_peer.py send ENDPOINT PAYLOAD_DIR [DICT_FILE]   PUSH: every file in PAYLOAD_DIR (sorted) becomes one
                                                        message; files named *-a / *-b of one stem are two parts
  wire_peer.py recv ENDPOINT PAYLOAD_DIR [DICT_FILE]   PULL: expects those messages, checks every part
  wire_peer.py sub  ENDPOINT TOPIC PAYLOAD_DIR          SUB: expects [topic][frame] for each file
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


def check_frame(frame, expected, where):
    params = zstandard.get_frame_parameters(frame)
    if params.content_size != len(expected):
        fail(f"{where}: content size in header={params.content_size}, payload={len(expected)}")


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
                check_frame(frame, expected, f"message {i} part {j}")
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
            check_frame(got[1], parts[0], f"message {i}")
            if dec.decompress(got[1]) != parts[0]:
                fail(f"message {i}: payload differs")
        print(f"ok {len(msgs)}", flush=True)
    else:
        fail(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
