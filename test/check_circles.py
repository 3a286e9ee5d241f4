"""style.circles: no circle of files inside a folder of translate/, zmap/, common/ or vol_connector/.
A file depends on another of its folder when its object file uses a symbol the other's
defines (a call, or data such as a codec's class): a folder's files then call one way, and a
file can be read, tested and replaced knowing only those below it. Headers are not edges:
a folder's header declares what several of its files define.

KNOWN lists circles allowed while they are being untangled (none today): the check fails on
any other circle, and on a known one that takes in a file not listed for it.
  check_circles.py SOURCE_DIR BUILD_DIR"""
import glob
import os
import re
import subprocess
import sys

KNOWN = {}


def objects(src, build):
    """source path (relative) -> object file, for the folders checked"""
    out = {}
    for o in glob.glob(os.path.join(build, "**", "*.c.o"), recursive=True):
        m = re.search(r"^(.*)/CMakeFiles/[^/]+\.dir/(.*)\.c\.o$", os.path.relpath(o, build))
        if not m:
            continue
        rel = os.path.normpath(os.path.join(m.group(1), m.group(2) + ".c"))
        if re.match(r"^(translate/[^/]+|zmap(/[^/]+)?|common|vol_connector)/[^/]+\.c$", rel) and os.path.exists(
                os.path.join(src, rel)):
            out.setdefault(rel, o)
    return out


def symbols(o):
    defined, used = set(), set()
    for line in subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRC":
            defined.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            used.add(p[1])
    return defined, used


def circles(graph):
    """strongly connected components of more than one file (Tarjan)"""
    index, low, stack, on, res, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                res.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return res


def main():
    src, build = sys.argv[1], sys.argv[2]
    objs = objects(src, build)
    if len(objs) < 50:
        print(f"FAIL: only {len(objs)} object files found under {build}: build first")
        return 1
    syms = {f: symbols(o) for f, o in objs.items()}
    folders = {}
    for f in objs:
        folders.setdefault(os.path.dirname(f), []).append(f)
    status = 0
    for folder, files in sorted(folders.items()):
        graph = {a: {b for b in files if b != a and syms[a][1] & syms[b][0]} for a in files}
        for comp in circles(graph):
            names = {os.path.basename(c) for c in comp}
            extra = names - KNOWN.get(folder, set())
            line = " ".join(sorted(names))
            if extra:
                status = 1
                print(f"FAIL: {folder}: a circle of {len(comp)} files: {line}")
                for a in comp:
                    deps = sorted(os.path.basename(b) for b in graph[a] if b in comp)
                    print(f"    {os.path.basename(a)} -> {' '.join(deps)}")
            else:
                print(f"known (issue [11]): {folder}: a circle of {len(comp)} files: {line}")
    if status == 0:
        print(f"{len(objs)} files in {len(folders)} folders: no circle of files outside the known ones")
    return status


sys.exit(main())
