"""The data h5dump prints of a file or store, per object: for comparing what h5dump shows
of a store through the connector with what it shows of a native file, value for value,
when the rest of the listing legitimately differs (datatype details, the netCDF-4
plumbing attributes and references of each format).

    h5dump_data.py [--attributes] [--skip PATH ...] < h5dump-output > facts

Run h5dump with -y -w 0 -m %.17g (no indices, no wrapping, every digit of a float). Each
output line is one dataset's data, "DATASET <path> = <values>", or with --attributes also
one attribute's, "ATTRIBUTE <object path>@<name> = <values>", sorted. Values are the text
h5dump prints, on one line. --skip leaves out a dataset (PATH) or an attribute
(PATH@NAME): a value that one side holds for a reason named by the caller.

Left out always: references (they print object addresses or file names) and the
attributes that tell dimension scales and netCDF-4's bookkeeping (CLASS, NAME,
DIMENSION_LIST, REFERENCE_LIST, DIMENSION_LABELS, _Netcdf4Dimid, _Netcdf4Coordinates,
_NCProperties, _nc3_strict), which normalize_h5dump.py compares."""
import re
import sys

OPEN = re.compile(r'^(\s*)(GROUP|DATASET|ATTRIBUTE|DATATYPE) "((?:[^"\\]|\\.)*)" \{$')
DATA = re.compile(r"^(\s*)DATA \{$")
PLUMBING = {"CLASS", "NAME", "DIMENSION_LIST", "REFERENCE_LIST", "DIMENSION_LABELS", "_Netcdf4Dimid",
            "_Netcdf4Coordinates", "_NCProperties", "_nc3_strict"}


def facts(lines, attributes, skip):
    out = []
    stack = []  # (indent, kind, name)
    data = None  # (indent, key, [text])
    for raw in lines:
        line = raw.rstrip("\n")
        if data is not None:
            if line.strip() == "}" and len(line) - len(line.lstrip()) == data[0]:
                key, text = data[1], " ".join(t.strip() for t in data[2])
                if key and not re.search(r"\b(DATASET|GROUP|DATATYPE) (\d+ )?\"", text):
                    out.append("%s = %s" % (key, text))
                data = None
            else:
                data[2].append(line)
            continue
        m = OPEN.match(line)
        if m:
            stack.append((len(m.group(1)), m.group(2), m.group(3)))
            continue
        m = DATA.match(line)
        if m and stack:
            key = None
            kind, name = stack[-1][1], stack[-1][2]
            if kind == "DATASET":
                path = name if name.startswith("/") else object_path(stack)
                key = None if path in skip else "DATASET %s" % path
            elif kind == "ATTRIBUTE" and attributes and name not in PLUMBING:
                owner = object_path(stack[:-1]) or "/"
                key = None if "%s@%s" % (owner, name) in skip else "ATTRIBUTE %s@%s" % (owner, name)
            data = (len(m.group(1)), key, [])
            continue
        if line.strip() == "}" and stack and len(line) - len(line.lstrip()) == stack[-1][0]:
            stack.pop()
    return sorted(out)


def object_path(stack):
    """The path of the innermost group or dataset of the stack (h5dump names the root
    group "/" and the others by their link names)."""
    parts = [name for _, kind, name in stack if kind in ("GROUP", "DATASET", "DATATYPE") and name != "/"]
    if parts and parts[-1].startswith("/"):
        return parts[-1]  # h5dump -d names a dataset by its full path
    return "/" + "/".join(parts)


def main():
    args = sys.argv[1:]
    attributes = "--attributes" in args
    skip = set()
    for i, a in enumerate(args):
        if a == "--skip":
            skip.add(args[i + 1])
    sys.stdout.write("".join(f + "\n" for f in facts(sys.stdin, attributes, skip)))


if __name__ == "__main__":
    main()
