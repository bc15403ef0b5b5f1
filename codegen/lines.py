"""Passes over the lines of a finished function of the engine, applied after compilation:
``fill_empty_blocks`` (a block left with only comments gets ``pass``), ``hoist_annotations`` (one
annotation per name), ``reuse_lookups`` (a remembered value looked up once), ``mirror_slots`` (slots
read often live in a Python local), ``mark_unread`` (locals never read are assigned to ``_``), and
the helpers they share for reading code without its string literals and comments.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_ASSIGN = re.compile(r"^(\s*)(x_\w+_\d+)(?::[^=]+)? = ")
_DECLARE = re.compile(r"^(\s*)([A-Za-z_]\w*)(: [^=]+?)? = ")
STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")


def nesting(code: str) -> int:
    """How deep brackets nest in a line of generated code (strings skipped)."""
    if code.count("(") + code.count("[") + code.count("{") < 30:
        return 0  # (most code: too few brackets to matter)
    depth = deepest = 0
    for ch in STRING.sub("''", code):
        if ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth -= 1
    return deepest


def code_only(lines: list[str]) -> str:
    """The code of some lines without string literals and comments (to see which names it uses)."""
    return "\n".join(STRING.sub("''", line).split("#", 1)[0] for line in lines)


def code_size(lines: list[str]) -> int:
    return sum(1 for line in lines if not line.lstrip().startswith("#"))


def hoist_annotations(lines: list[str]) -> list[str]:
    """A continuation can hold the same code twice (the rest of a loop's round, then the loop):
    a name keeps one annotation, at its first assignment."""
    annotation: dict[str, str] = {}
    first: dict[str, int] = {}
    for k, line in enumerate(lines):
        m = _DECLARE.match(line)
        if m:
            first.setdefault(m.group(2), k)
            if m.group(3):
                annotation.setdefault(m.group(2), m.group(3))
    out = []
    for k, line in enumerate(lines):
        m = _DECLARE.match(line)
        if m and m.group(2) in annotation:
            keep = annotation[m.group(2)] if first[m.group(2)] == k else ""
            line = f"{m.group(1)}{m.group(2)}{keep} = {line[m.end():]}"
        out.append(line)
    return out


_SLOT = re.compile(r"\bL\[(\d+)\]")
_SLOT_SET = re.compile(r"^(\s*)L\[(\d+)\] ([-+]?=) (.*)$")
_GROUP_CONTINUES = re.compile(r"^    (?:else|elif\b|except\b|finally)")


_LOOKUP = re.compile(r"^(\s*)(t\d+) = C\[(\d+)\]\.get\((\d+)\)$")
_CLEAR = re.compile(r"^\s*C\[(\w+)\]\.clear\(\)$")
_LOOP = re.compile(r"^(\s*)(?:for|while) .*:$")


def reuse_lookups(lines: list[str]) -> list[str]:
    """A remembered value looked up again where an earlier lookup of it is sure to have run (the
    earlier one is at this or an enclosing level of the same block) and nothing since can have
    forgotten it: the earlier result is used."""
    active: dict[tuple[str, str], tuple[str, int]] = {}  # (group, key) -> (name, indent)

    def forget(group: str) -> None:
        for key in [k for k in active if group == "*" or k[0] == group]:
            del active[key]

    def cleared(start: int, indent: int) -> set[str]:
        """The groups a loop body starting after line ``start`` clears ("*": any)."""
        out: set[str] = set()
        for line in lines[start + 1:]:
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            m = _CLEAR.match(line)
            if m:
                out.add(m.group(1) if m.group(1).isdigit() else "*")
        return out

    out: list[str] = []
    renamed: dict[str, str] = {}
    k = 0
    while k < len(lines):
        line = lines[k]
        if renamed:
            line = re.sub(r"\bt\d+\b", lambda m: renamed.get(m.group(0), m.group(0)), line)
        if line.strip() and not line.lstrip().startswith("#"):
            indent = len(line) - len(line.lstrip())
            for key in [key for key, (_, level) in active.items() if level > indent]:
                del active[key]
            m = _CLEAR.match(line)
            if m:
                forget(m.group(1) if m.group(1).isdigit() else "*")
            loop = _LOOP.match(line)
            if loop:
                # a later round runs after what this round clears
                for group in cleared(k, indent):
                    forget(group)
            m = _LOOKUP.match(line)
            name = m.group(2) if m else ""
            if m and k + 2 < len(lines) and re.sub(r"\bt\d+\b", lambda x: renamed.get(x.group(0), x.group(0)), lines[k + 1]).strip() == f"if {name} is None:":
                key = (m.group(3), m.group(4))
                if key in active:
                    if active[key][0] != name:
                        renamed[name] = active[key][0]  # the earlier result, under its name
                    k += 3
                    continue
                active[key] = (name, len(m.group(1)))
                out.append(line)
                out.extend(re.sub(r"\bt\d+\b", lambda x: renamed.get(x.group(0), x.group(0)), x) for x in lines[k + 1:k + 3])
                k += 3
                continue
        out.append(line)
        k += 1
    return out


def map_code(line: str, fn: Callable[[str], str]) -> str:
    """Apply ``fn`` to the code of a line, leaving its string literals and comment alone."""
    out, pos = [], 0
    for m in STRING.finditer(line):
        out.append(fn(line[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    rest = line[pos:]
    code, hash_, comment = rest.partition("#")
    out.append(fn(code) + hash_ + comment)
    return "".join(out)


def mirror_slots(lines: list[str]) -> list[str]:
    """Within one function, a slot read more often than written is mirrored in a Python local
    ``Lk`` (a local is cheaper to read than a list item): the local is loaded before the first
    top-level statement that uses the slot (unless that statement sets it), and every write to
    the slot sets both."""
    reads: dict[int, int] = {}
    writes: dict[int, int] = {}
    first: dict[int, int] = {}  # slot -> line where the first top-level statement using it starts
    group = 0
    for k, line in enumerate(lines):
        if line.startswith("    ") and not line.startswith("     ") and not _GROUP_CONTINUES.match(line):
            group = k
        code = map_code(line, lambda c: c)
        code = STRING.sub("''", code).split("#", 1)[0]
        m = _SLOT_SET.match(code)
        for slot in (int(x) for x in _SLOT.findall(code)):
            first.setdefault(slot, group)
            if m and int(m.group(2)) == slot and code.count(f"L[{slot}]") == 1:
                writes[slot] = writes.get(slot, 0) + (m.group(3) == "=")
                reads[slot] = reads.get(slot, 0) + (m.group(3) != "=")
            else:
                reads[slot] = reads.get(slot, 0) + 1
    mirrored: dict[int, bool] = {}  # slot -> needs loading
    for slot, start in first.items():
        m = _SLOT_SET.match(lines[start])
        sets_first = bool(m and int(m.group(2)) == slot and m.group(3) == "=" and f"L[{slot}]" not in m.group(4))
        if 2 * reads.get(slot, 0) - 2 * writes.get(slot, 0) - (0 if sets_first else 4) > 0:
            mirrored[slot] = not sets_first

    def swap(code: str) -> str:
        return _SLOT.sub(lambda m: f"L{m.group(1)}" if int(m.group(1)) in mirrored else m.group(0), code)

    loads: dict[int, list[int]] = {}
    for slot, load in mirrored.items():
        if load:
            loads.setdefault(first[slot], []).append(slot)
    out: list[str] = []
    typed: set[int] = set()  # a slot holds values of several types in turn: the local is Any

    def declare(slot: int) -> str:
        if slot in typed:
            return ""
        typed.add(slot)
        return ": Any"

    for k, line in enumerate(lines):
        for slot in sorted(loads.get(k, [])):
            out.append(f"    L{slot}{declare(slot)} = L[{slot}]")
        m = _SLOT_SET.match(line)
        if m and int(m.group(2)) in mirrored:
            ind, slot = m.group(1), int(m.group(2))
            op = m.group(3)
            out.append(map_code(f"{ind}L{slot}{declare(slot) if op == '=' else ''} {op} {m.group(4)}", swap))
            out.append(f"{ind}L[{slot}] = L{slot}")
        else:
            out.append(map_code(line, swap))
    return out


def fill_empty_blocks(lines: list[str]) -> list[str]:
    """Statements that do nothing in an engine (say, shuffle) leave only their comment: an empty
    block gets ``pass``."""
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        stripped = line.strip()
        if stripped.endswith(":") and not stripped.startswith("#"):
            indent = len(line) - len(line.lstrip())
            following = next((x for x in lines[i + 1:] if x.strip() and not x.strip().startswith("#")), "")
            if len(following) - len(following.lstrip()) <= indent:
                out.append(" " * (indent + 4) + "pass")
    return out


def mark_unread(lines: list[str]) -> list[str]:
    """Locals the rules bind but never read are still computed (the value may fail to evaluate,
    and that error must happen) but assigned to ``_``."""
    assigned: dict[str, int] = {}
    for line in lines:
        m = _ASSIGN.match(line)
        if m:
            assigned[m.group(2)] = assigned.get(m.group(2), 0) + 1
    if not assigned:
        return lines
    text = "\n".join(lines)
    unread = {name for name, k in assigned.items() if len(re.findall(rf"\b{name}\b", text)) == k}
    out = []
    for line in lines:
        m = _ASSIGN.match(line)
        out.append(f"{m.group(1)}_ = {line[m.end():]}" if m and m.group(2) in unread else line)
    return out
