import json, glob, statistics, re, os
D=os.path.dirname(os.path.abspath(__file__))
rows={}  # (variant, method, size) -> list of (zmq, jni) per round
for f in sorted(glob.glob(D+'/r*-*.json')):
    m=re.match(r'r(\d+)-(.+)\.json', os.path.basename(f)); r,v=int(m.group(1)),m.group(2)
    try: data=json.load(open(f))
    except Exception: continue
    cell={}
    for b in data:
        meth=b['benchmark'].split('.')[-1]; p=b['params']
        cell[(meth,int(p['size']),p['contestant'])]=b['primaryMetric']['score']
    for (meth,size,c),s in cell.items():
        if c!='zmqzstd-segment': continue
        jni=cell.get((meth,size,'zstdjni-direct'))
        rows.setdefault((v,meth,size),[]).append((r,s,jni))
variants=['system','deb-own','154-O3','157-O3']
print("zmqzstd-segment / zstdjni-direct in the same JVM, per round; median")
print("| method | size | " + " | ".join(variants) + " |")
print("|---|---|" + "---|"*len(variants))
for meth in ['compress','decompress']:
    for size in [1024,65536,1048576]:
        cells=[]
        for v in variants:
            xs=sorted(rows.get((v,meth,size),[]))
            rat=[s/j for _,s,j in xs if j]
            cells.append(("%.3f (%s)" % (statistics.median(rat), ", ".join("%.3f"%x for x in rat))) if rat else "-")
        print(f"| {meth} | {size} | " + " | ".join(cells) + " |")
print()
print("variant / system, zmqzstd-segment scores, per round (same round); median")
for meth in ['compress','decompress']:
    for size in [1024,65536,1048576]:
        sysr={r:s for r,s,_ in rows.get(('system',meth,size),[])}
        cells=[]
        for v in variants[1:]:
            rat=[s/sysr[r] for r,s,_ in rows.get((v,meth,size),[]) if r in sysr]
            cells.append(("%.3f (%s)" % (statistics.median(rat), ", ".join("%.3f"%x for x in rat))) if rat else "-")
        print(f"| {meth} | {size} | " + " | ".join(cells) + " |")
