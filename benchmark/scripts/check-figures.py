#!/usr/bin/env python3
"""Recompute figures BENCHMARKS.md quotes from the committed raw results and report every mismatch.

Each check names a passage of BENCHMARKS.md (text that must appear in it verbatim) and builds the
same text from the JSON files under benchmark/results/ that the passage cites. A check fails when
the passage is no longer in the document (reworded: update the check) or when the data give other
figures. Reads files only; runs no benchmark.

    python3 benchmark/scripts/check-figures.py [REPOSITORY_ROOT]   # exit status 1 on any mismatch
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
RESULTS = os.path.join(ROOT, 'benchmark', 'results')


def rows(path):
    """The rows of one JMH JSON file under benchmark/results/."""
    with open(os.path.join(RESULTS, path)) as f:
        return json.load(f)


def score(path, method, **params):
    """The primary score of the one row of a JMH JSON file with this method and these parameters.

    Throughput comes back as ops/s; an average time (avgt) as its reciprocal, so that every ratio of
    two scores reads 'how many times as fast'."""
    found = [r for r in rows(path) if r['benchmark'].endswith('.' + method)
             and all(r.get('params', {}).get(k) == str(v) for k, v in params.items())]
    if len(found) != 1:
        raise ValueError('%s: %d rows for %s %s' % (path, len(found), method, params))
    s = found[0]['primaryMetric']['score']
    return 1.0 / s if found[0]['mode'] == 'avgt' else s


def ratios(paths_a, paths_b, method, **params):
    """Per-round ratios score(a) / score(b), the rounds paired in order."""
    return [score(a, method, **params) / score(b, method, **params) for a, b in zip(paths_a, paths_b)]


def fmt(values, digits=2):
    return ', '.join('%.*f' % (digits, v) for v in values)


def med(values, digits=3):
    return '%.*f' % (digits, statistics.median(values))


CHECKS = []


def check(section, build):
    """Register a check: build() returns the passages (strings) the document must contain."""
    CHECKS.append((section, build))


# --- "What the codec's call guard costs" (2026-11-27) ----------------------------------------------

GUARD = 'experiments/2026-11-27-codec-guard-and-array-payloads/'


def codec_guard():
    new = [GUARD + 'codec-r%d-new.json' % i for i in range(1, 6)]
    old = [GUARD + 'codec-r%d-old.json' % i for i in range(1, 6)]
    out = []
    for method in ('compress', 'decompress'):
        r64 = ratios(new, old, method, contestant='zmqzstd-segment', size=64)
        r1k = ratios(new, old, method, contestant='zmqzstd-segment', size=1024)
        out.append('| %s | %s (median **%s**) | %s (**%s**) |' % (method, fmt(r64), med(r64), fmt(r1k), med(r1k)))
    peers = []
    for i in range(1, 4):
        p = GUARD + 'peers-r%d.json' % i
        peers.append(score(p, 'decompress', contestant='zmqzstd-segment', size=64)
                     / score(p, 'decompress', contestant='aircompressor-native', size=64))
    out.append('%s and %sx aircompressor' % (', '.join('%.2fx' % v for v in sorted(peers)[:-1]), '%.2f' % sorted(peers)[-1]))
    return out


check("What the codec's call guard costs", codec_guard)


# --- "Array and ByteBuffer payloads": raw frames straight from arrays (2026-11-27) ---------------

RAW = 'experiments/2026-11-27-raw-frames-from-arrays/'


def raw_frames_from_arrays():
    rounds = range(1, 12)
    out = []
    for transport in ('inproc', 'tcp'):
        old = [score(RAW + 'raw64-r%d-old.json' % i, 'transfer', transport=transport) for i in rounds]
        new = [score(RAW + 'raw64-r%d-new.json' % i, 'transfer', transport=transport) for i in rounds]
        r = [n / o for n, o in zip(new, old)]
        alloc = {}
        for kind in ('old', 'new'):
            values = []
            for i in rounds:
                for row in rows(RAW + 'raw64-r%d-%s.json' % (i, kind)):
                    if row['params']['transport'] == transport:
                        values.append(row['secondaryMetrics']['gc.alloc.rate.norm']['score'])
            alloc[kind] = '%.3f–%.3f' % (min(values), max(values))
        out.append('| %s | %s–%s | %s–%s | %.3f–%.3f, median **%s** | %s / %s |' % (
            transport, '{:,.0f}'.format(min(old)), '{:,.0f}'.format(max(old)), '{:,.0f}'.format(min(new)),
            '{:,.0f}'.format(max(new)), min(r), max(r), med(r), alloc['old'], alloc['new']))
    return out


check('Array and ByteBuffer payloads: raw frames from arrays', raw_frames_from_arrays)


# --- "What the shared call guard costs" (2026-11-27) -----------------------------------------------

SHARED = 'experiments/2026-11-27-shared-call-guard/'


def shared_rounds(run, kind, rounds, method, **params):
    files = [SHARED + run + '/%s-r%d-%%s.json' % (kind, i) for i in range(1, rounds + 1)]
    return ratios([f % 'new' for f in files], [f % 'old' for f in files], method, **params)


def shared_call_guard():
    single, four, ids = 'run3-single-thread', 'run1-four-benchmarks', 'run2-thread-id-variant'
    out = []
    d64 = shared_rounds(single, 'codec', 5, 'decompress', size=64)
    out.append('| %s | **%s** |' % (fmt(d64), med(d64)))
    for method in ('sendReceive64', 'receiveWouldBlock'):
        r = shared_rounds(single, 'socket', 5, method)
        out.append('| %s | **%s** |' % (fmt(r), med(r)))
    c64 = shared_rounds(four, 'codec', 4, 'compress', size=64)
    c1k = shared_rounds(four, 'codec', 4, 'compress', size=1024)
    out.append('| %s / %s | **%s** / **%s** |' % (fmt(c64), fmt(c1k), med(c64), med(c1k)))
    d1k = shared_rounds(four, 'codec', 4, 'decompress', size=1024)
    out.append('| %s | **%s** |' % (fmt(d1k), med(d1k)))
    for size in (64, 1024):
        inproc = shared_rounds(four, 'pipeline', 4, 'transfer', size=size, transport='inproc')
        tcp = shared_rounds(four, 'pipeline', 4, 'transfer', size=size, transport='tcp')
        out.append('| %s / %s | **%s** / **%s** |' % (fmt(inproc), fmt(tcp), med(inproc), med(tcp)))
    for transport in ('inproc', 'tcp'):
        first = shared_rounds(four, 'transport', 4, 'sendReceive', strategy='zeroCopyPooled', transport=transport)
        second = shared_rounds(ids, 'transport', 4, 'sendReceive', strategy='zeroCopyPooled', transport=transport)
        out.append('| %s; %s | **%s** |' % (fmt(first), fmt(second), med(first + second)))
    both = [shared_rounds(four, 'transport', 4, 'sendReceive', strategy='byteArray', transport=t)
            + shared_rounds(ids, 'transport', 4, 'sendReceive', strategy='byteArray', transport=t) for t in ('inproc', 'tcp')]
    out.append('| %s / %s | **%s** / **%s** |' % (fmt(both[0]), fmt(both[1]), med(both[0]), med(both[1])))
    # the single-thread times, median of five forks, ns: three guards, shared guard, the thread-id variant
    ns = {v: [statistics.median(1e9 / score(SHARED + single + '/%s-r%d-%s.json' % (kind, i, v), method, **params) / 1e9
                                for i in range(1, 6)) for kind, method, params in
              (('codec', 'decompress', {'size': 64}), ('socket', 'sendReceive64', {}), ('socket', 'receiveWouldBlock', {}))]
          for v in ('old', 'new', 'id')}
    out.append('64 B (%.1f ns before, %.1f ns after)' % (ns['old'][0], ns['new'][0]))
    out.append('`SocketCallBenchmark.sendReceive64` (%.1f ns, %.1f ns)' % (ns['old'][1], ns['new'][1]))
    out.append('`SocketCallBenchmark.receiveWouldBlock` (%.0f ns, %.0f ns)' % (ns['old'][2], ns['new'][2]))
    out.append('64 B decompression %.1f ns (against %.1f and %.1f), `sendReceive64` %.0f ns, `receiveWouldBlock` %.0f ns'
               % (ns['id'][0], ns['old'][0], ns['new'][0], ns['id'][1], ns['id'][2]))
    return out


check('What the shared call guard costs', shared_call_guard)


# --- Summary, "Codec" row and "The summary in detail": the codec verdicts ------------------------

CODEC_SIZES = (64, 1024, 65536, 1048576)
PEERS = ('zstdjni-direct', 'aircompressor-native')


def codec_verdict(folder, check_name, method, size, rounds=3):
    """Median over the rounds of zmqzstd-segment's ops/s over the faster peer's, as verdict.sh does."""
    per_round = []
    for i in range(1, rounds + 1):
        path = '%s/%s-r%d.json' % (folder, check_name, i)
        ours = score(path, method, contestant='zmqzstd-segment', size=size)
        per_round.append(ours / max(score(path, method, contestant=p, size=size) for p in PEERS))
    return per_round


def codec_medians(folder, small_check, large_check, large_folder=None):
    """The five medians (64 B to 64 MiB) of compress and of decompress, two digits each."""
    out = {}
    for method in ('compress', 'decompress'):
        values = [statistics.median(codec_verdict(folder, small_check, method, s)) for s in CODEC_SIZES]
        values.append(statistics.median(codec_verdict(large_folder or folder, large_check, method, 67108864)))
        out[method] = ['%.2f' % v for v in values]
    return out


def codec_summary():
    lib157 = codec_medians('verdict-codec-lib157', 'codec-lib', 'codec-lib-64m', 'verdict-codec-lib157-64m')
    lib154 = codec_medians('verdict-codec-lib157', 'codec', 'codec-64m', 'verdict-codec-lib157-64m')
    samelib = codec_medians('verdict', 'codec-samelib', 'codec-samelib-64m')
    earlier = codec_medians('verdict', 'codec', 'codec-64m')
    out = []
    for m in (lib157, lib154):
        out.append('compress %sx, decompress %sx' % (' / '.join(m['compress']), ' / '.join(m['decompress'])))
    for m in (lib157, lib154, samelib, earlier):
        for method in ('compress', 'decompress'):
            out.append('| %s | %s |' % (method, ' | '.join(m[method])))
    above_64 = [float(v) for method in ('compress', 'decompress') for v in samelib[method][1:]]
    out.append('On the very file aircompressor bundles: %.2f\u2013%.2fx from 1 KiB up' % (min(above_64), max(above_64)))
    return out


check('Summary: codec', codec_summary)


# --- Summary, "Pipeline speed" row and "The summary in detail": the pipeline verdicts ------------

PIPELINE_SIZES = (1024, 65536, 1048576)


def verdict_rounds(folder, check_name, method, key, ours, theirs, **params):
    """Per round of a verdict.sh check, the msg/s of ours over the fastest of theirs in the same JMH run."""
    per_round, i = [], 1
    while os.path.exists(os.path.join(RESULTS, '%s/%s-r%d.json' % (folder, check_name, i))):
        path = '%s/%s-r%d.json' % (folder, check_name, i)
        per_round.append(score(path, method, **{key: ours}, **params)
                         / max(score(path, method, **{key: p}, **params) for p in theirs))
        i += 1
    return per_round


def pipeline_rounds(folder, check_name, size, transport='tcp', ours='zmqzstd', theirs=('jeromqZstdjni',), **params):
    """Per round, zmqzstd's msg/s over the fastest of the named peers in the same JMH run."""
    return verdict_rounds(folder, check_name, 'transfer', 'contestant', ours, theirs, size=size, transport=transport, **params)


def with_range(values):
    return '%.2fx (%.2f\u2013%.2f)' % (statistics.median(values), min(values), max(values))


def pipeline_medians(folder, check_name, sizes=PIPELINE_SIZES, **kwargs):
    return ['%.2f' % statistics.median(pipeline_rounds(folder, check_name, s, **kwargs)) for s in sizes]


def pipeline_summary():
    out = []
    parallel = [pipeline_medians('verdict-parallel-2026-11-25', 'pipeline-parallel'),
                pipeline_medians('verdict-pipeline-io2', 'pipeline-parallel-tcp'),
                pipeline_medians('verdict-pipeline-2026-11-26d', 'pipeline-parallel-tcp')]
    out.append('%s / %s / %sx (5 rounds, 2026-11-25), %s / %s / %sx (4 rounds, 2026-11-26 morning), '
               '%s / %s / %sx (3 rounds, 2026-11-26 10:19 UTC)' % tuple(parallel[0] + parallel[1] + parallel[2]))
    peer = pipeline_medians('verdict-parallel-peer', 'pipeline-parallel-peer', theirs=('jeromqZstdjni', 'jeromqZstdjniParallel'))
    out.append('(or on one, where faster): %s / %s / %sx' % tuple(peer))
    one = [pipeline_medians('verdict-pipeline-2026-11-26c', 'pipeline'),
           pipeline_medians('verdict-pipeline-2026-11-26d', 'pipeline'),
           pipeline_medians('verdict-2026-11-26e', 'pipeline')]
    out.append('One compressing thread: %s / %s / %sx, %s / %s / %sx and %s / %s / %sx (three runs of 2026-11-26)'
               % tuple(one[0] + one[1] + one[2]))
    # the detail's rerun of 2026-11-25 at 39c85cc, with its 1 KiB range, and the same rounds at 64 B and inproc
    rerun = pipeline_rounds('verdict-parallel-2026-11-25', 'pipeline-parallel', 1024)
    small = pipeline_medians('verdict-parallel-2026-11-25', 'pipeline-parallel', sizes=(64,))
    inproc = pipeline_medians('verdict-parallel-2026-11-25', 'pipeline-parallel', sizes=(1024, 65536, 1048576, 64), transport='inproc')
    out.append('(5 rounds): tcp 1 KiB %.2fx (%.2f\u2013%.2f), 64 KiB %sx, 1 MiB %sx, 64 B %sx; inproc %sx, %sx, %sx, 64 B %sx'
               % ((statistics.median(rerun), min(rerun), max(rerun)) + tuple(parallel[0][1:] + small + inproc)))
    # the level-3 rounds that took turns with level 1, and those on libzstd 1.5.7
    level3 = pipeline_medians('verdict-parallel-l1', 'pipeline-parallel-tcp')
    level1 = pipeline_medians('verdict-parallel-l1', 'pipeline-parallel-l1')
    out.append('1 KiB %sx, 64 KiB %sx (one round' % tuple(level1[:2]))
    out.append('1 MiB %sx, against %sx, %sx, %sx at level 3 in the same rounds' % tuple(level1[2:] + level3))
    return out


check('Summary: pipeline speed', pipeline_summary)


def like_for_like():
    """The like-for-like table of the pipeline target (verdicts of 2026-11-26)."""
    peer = [with_range(pipeline_rounds('verdict-parallel-peer', 'pipeline-parallel-peer', s,
                                       theirs=('jeromqZstdjni', 'jeromqZstdjniParallel'))) for s in PIPELINE_SIZES]
    reused = [with_range(pipeline_rounds('verdict-reused-read', 'pipeline-reused', s, theirs=('jeromqZstdjniReused',),
                                         compressionThreads=3)) for s in PIPELINE_SIZES]
    one = ['%.2fx' % statistics.median(pipeline_rounds('verdict-reused-read', 'pipeline-reused', s,
                                                         theirs=('jeromqZstdjniReused',), compressionThreads=0))
           for s in PIPELINE_SIZES]
    return ['| %s | %s | %s |' % tuple(peer), '| %s | %s | %s |' % tuple(reused), '| one thread | the same | the same | %s | %s | %s |' % tuple(one)]


check('The summary in detail: pipeline, like for like', like_for_like)


def transport_read():
    """Receivers that read every byte, JMH verdict transport-read (2026-11-26)."""
    def rounds(size, transport, read):
        return verdict_rounds('verdict-reused-read', 'transport-read', 'sendReceive', 'strategy', 'zeroCopyPooled',
                              ('byteArray',), size=size, transport=transport, read=read)

    inproc = ['%.2fx' % statistics.median(rounds(s, 'inproc', 'all')) for s in (1024, 65536, 262144)]
    stamp = ['%.2fx' % statistics.median(rounds(s, 'inproc', 'stamp')) for s in (65536, 262144)]
    tcp = ['%.2fx' % statistics.median(rounds(s, 'tcp', 'all')) for s in (1024, 65536, 262144)]
    tcp64 = rounds(65536, 'tcp', 'all')
    return ['JMH verdict (3 rounds): inproc 1 KiB %s, 64 KiB %s, 256 KiB %s (%s and %s with 8-byte receivers in the '
            'same rounds); tcp %s, %s, %s (%.2f\u2013%.2f at 64 KiB)' % tuple(inproc + stamp + tcp + [min(tcp64), max(tcp64)])]


check('The summary in detail: transport, receivers reading every byte', transport_read)


# --- Summary, "Pipeline within 10 % of C" row and its detail: benchmark/c/interleave.sh's output ----

def c_rounds(name):
    """The per-round zmqzstd/C ratios of a results/c/*.txt file, by (size, transport)."""
    found = {}
    with open(os.path.join(RESULTS, 'c', name)) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 6 and not line.startswith('#'):
                c, ours = float(fields[3]), float(fields[4])
                found.setdefault((int(fields[0]), fields[1]), []).append(ours / c)
    return found


def c_summary():
    credit, cubic, free = c_rounds('interleaved-credit.txt'), c_rounds('interleaved-credit-cubic.txt'), c_rounds('interleaved.txt')

    def m(rounds, size, transport):
        return '%.2fx' % statistics.median(rounds[(size, transport)])

    tcp64 = credit[(64, 'tcp')]
    cubic64 = cubic[(64, 'tcp')]
    return ['tcp: 1 KiB %s, 64 KiB %s, 1 MiB %s; 64 B %s under' % (m(credit, 1024, 'tcp'), m(credit, 65536, 'tcp'),
                                                                 m(credit, 1048576, 'tcp'), m(credit, 64, 'tcp')),
            '(%s under `cubic`); inproc 64 B %s, 1 KiB %s' % (m(cubic, 64, 'tcp'), m(credit, 64, 'inproc'), m(credit, 1024, 'inproc')),
            'tcp: 64 B %s (%.2f\u2013%.2f), 1 KiB %s, 64 KiB %s, 1 MiB %s; inproc: 64 B %s, 1 KiB %s' % (
                m(credit, 64, 'tcp'), min(tcp64), max(tcp64), m(credit, 1024, 'tcp'), m(credit, 65536, 'tcp'),
                m(credit, 1048576, 'tcp'), m(credit, 64, 'inproc'), m(credit, 1024, 'inproc')),
            'the run before: tcp %s, %s, %s, %s, inproc %s, %s)' % tuple(
                m(free, s, t) for s, t in ((64, 'tcp'), (1024, 'tcp'), (65536, 'tcp'), (1048576, 'tcp'),
                                           (64, 'inproc'), (1024, 'inproc'))),
            'zmqzstd / C is %s at 64 B (%.2f\u2013%.2f) and %s at 1 KiB' % (m(cubic, 64, 'tcp'), min(cubic64), max(cubic64),
                                                                            m(cubic, 1024, 'tcp'))]


check('Summary: pipeline within 10 % of C', c_summary)


# --- Summary, "Transport" row: the interleaved runs, summarised by interleaved.py from the raw JVM files ---

def interleaved(folder, *pairs):
    """interleaved.py's rows for one results folder: way text -> (median, 95 % interval, JVMs ahead)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'interleaved.py')
    text = subprocess.run([sys.executable, script, os.path.join(RESULTS, folder)] + list(pairs),
                          capture_output=True, text=True, check=True).stdout
    found = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip('|').split('|')]
        if len(cells) == 10 and cells[0] == 'transport':
            found[(cells[1], cells[2], cells[3])] = (cells[5].strip('*'), cells[6], cells[8].split('/')[0])
    return found


def transport_summary():
    send = interleaved('experiments/small-send-zmqsend')
    tcp64 = send[('tcp', '64 B', 'zeroCopyPooled / byteArray')]
    inproc64 = send[('inproc', '64 B', 'zeroCopyPooled / byteArray')]
    read = interleaved('interleaved-read-all')
    io2 = interleaved('interleaved-read-io2', 'zeroCopyPooled#2+all/byteArray#2+all', 'zeroCopyPooled#2/byteArray#2')
    io2_large = interleaved('interleaved-read-io2-large', 'zeroCopyPooled#2+all/byteArray#2+all')
    paired = 'zeroCopyPooled#2+all / byteArray#2+all (paired)'
    r64, s64 = io2[('tcp', '64 KiB', paired)], io2[('tcp', '64 KiB', 'zeroCopyPooled#2 / byteArray#2 (paired)')]
    r128, r256 = io2_large[('tcp', '128 KiB', paired)], io2_large[('tcp', '256 KiB', paired)]
    threshold = interleaved('interleaved-inproc-threshold')
    steps = [threshold[('inproc', s, 'zeroCopyPooled / byteArray')] for s in ('512 B', '1 KiB', '2 KiB', '4 KiB')]
    return ['%sx, %s, %s of 20 JVMs ahead' % tcp64,
            'zmq_send\"): tcp %sx (%s), inproc %sx (%s)' % (tcp64[0], tcp64[1], inproc64[0], inproc64[1]),
            'inproc 64 KiB %.2fx (%s), tcp 256 KiB %.2fx (%s), tcp 64 KiB %.2fx (%s, ahead in %s of 8)' % (
                float(read[('inproc', '64 KiB', 'zeroCopyPooled+all / byteArray+all')][0]),
                read[('inproc', '64 KiB', 'zeroCopyPooled+all / byteArray+all')][1],
                float(read[('tcp', '256 KiB', 'zeroCopyPooled+all / byteArray+all')][0]),
                read[('tcp', '256 KiB', 'zeroCopyPooled+all / byteArray+all')][1],
                float(read[('tcp', '64 KiB', 'zeroCopyPooled+all / byteArray+all')][0]),
                read[('tcp', '64 KiB', 'zeroCopyPooled+all / byteArray+all')][1],
                read[('tcp', '64 KiB', 'zeroCopyPooled+all / byteArray+all')][2]),
            'zero-copy is %.2fx `byte[]` at 64 KiB with reading receivers (%s) and %.2fx with 8-byte receivers, ahead in %s '
            'of 6 JVMs, and with reading receivers %.2fx at 128 KiB (%s) and %.2fx at 256 KiB (%s)' % (
                float(r64[0]), r64[1], float(s64[0]), r64[2], float(r128[0]), r128[1], float(r256[0]), r256[1]),
            'inproc 512 B %.2fx (%s), 1 KiB %.2fx (%s), 2 KiB %.2fx, 4 KiB %.2fx' % (
                float(steps[0][0]), steps[0][1], float(steps[1][0]), steps[1][1], float(steps[2][0]), float(steps[3][0]))]


check('Summary: transport', transport_summary)


def main():
    with open(os.path.join(ROOT, 'BENCHMARKS.md')) as f:
        document = ' '.join(f.read().replace('**', '').split())
    failures = 0
    for section, build in CHECKS:
        try:
            passages = build()
        except (OSError, ValueError, KeyError) as e:
            print('FAIL %s: %s' % (section, e))
            failures += 1
            continue
        for passage in passages:
            if ' '.join(passage.replace('**', '').split()) in document:
                print('ok   %s: %s' % (section, passage))
            else:
                print('FAIL %s: the data give %r, which BENCHMARKS.md does not say' % (section, passage))
                failures += 1
    print('%d checks, %d mismatches' % (sum(1 for _ in CHECKS), failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
