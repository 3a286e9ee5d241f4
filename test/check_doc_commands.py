"""Every command block of README.md and docs/*.md (a ```sh fence) names the tests that run
its commands, in an HTML comment on the line before it:

    <!-- tested by: interop.copy_tools, distro -->

Each name must be a test the project defines: a ctest test (its name, or a family as
"mpi.*", found in a test/ CMakeLists.txt or test/**/*.cmake), "distro" (the distribution
stage of scripts/run-tests.sh, test/distro) or ".ci/run". A block without the comment, or
naming a test that does not exist, fails this check, so that no command reaches a reader
untested and a renamed test does not leave a stale claim behind. Output listings are
fenced ```text and are not commands.

    check_doc_commands.py SOURCE_DIR
"""
import glob
import os
import re
import sys

src = sys.argv[1]
defs = ""
for pat in ("test/**/CMakeLists.txt", "test/**/*.cmake", "test/CMakeLists.txt"):
    for p in glob.glob(os.path.join(src, pat), recursive=True):
        defs += open(p, encoding="utf-8").read()
stages = {"distro": os.path.join(src, "test/distro/run.sh"), ".ci/run": os.path.join(src, ".ci/run")}
MARK = re.compile(r"^<!-- tested by: (.+?) -->$")


def exists(name):
    if name in stages:
        return os.path.exists(stages[name])
    base = name.split(" ")[0]
    if base.endswith(".*"):
        return re.search(r"\b" + re.escape(base[:-2]) + r"\.", defs) is not None
    if re.search(r"(NAME|nczarr_\w+_test\(|test\()\s*" + re.escape(base) + r"\b", defs):
        return True
    # tests made in a loop: "<prefix>.${name}", the name in the loop's list or the name of a
    # script of test/<prefix>/ (interop.<script>)
    prefix, _, rest = base.partition(".")
    if not rest or (prefix + ".${") not in defs:
        return False
    return (re.search(r"\b" + re.escape(rest) + r"\b", defs) is not None
            or os.path.exists(os.path.join(src, "test", prefix, rest + ".sh")))


bad = 0
files = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
nblocks = 0
for path in files:
    lines = open(path, encoding="utf-8").read().splitlines()
    infence = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            if not infence and line.strip() == "```sh":
                nblocks += 1
                prev = lines[i - 1] if i > 0 else ""
                m = MARK.match(prev.strip())
                rel = os.path.relpath(path, src)
                if not m:
                    print("%s:%d: a command block without '<!-- tested by: ... -->' on the line before it" % (rel, i + 1))
                    bad = 1
                else:
                    for name in (n.strip() for n in m.group(1).split(",")):
                        if not exists(name):
                            print("%s:%d: names '%s', which is no test of the project" % (rel, i + 1, name))
                            bad = 1
            infence = not infence
if bad:
    sys.exit(1)
print("check_doc_commands: %d command blocks in %d files, each named by the tests that run it" % (nblocks, len(files)))
