"""Editions (``Editions``): ``edition of "GAME" { same LOCAL as COMMON }`` says that the ruleset is
one edition of a game and maps the names that differ between its editions onto common ones.
Checked here: each local name exists (a declaration, an enum value, a component's display text)
and is mapped once, and no two local names share a common one.
"""

from __future__ import annotations

from .. import ast, ir
from .base import _listing, _src
from .names import Names


class Editions(Names):
    """The edition declaration and its mapping."""

    def check_edition(self, decls: list[ast.EditionDecl]) -> ir.Edition | None:
        if not decls:
            return None
        for extra in decls[1:]:
            self.d.error("E0202", "a second edition declaration", extra.span, hint=f"the first is at line {decls[0].span.line}")
        e = decls[0]
        same: list[tuple[ir.EditionName, ir.EditionName, ir.Source | None]] = []
        locals_seen: dict[tuple[str, str, str | None], int] = {}
        commons_seen: dict[tuple[str, str], str] = {}
        displays = {c.display for c in self.components}
        for local, common, src in e.same:
            key = (local.kind, local.name, local.member)
            if key in locals_seen:
                self.d.error("E0202", f"{_show(local)} is mapped twice", local.span, hint=f"the first mapping is at line {locals_seen[key]}")
                continue
            locals_seen[key] = local.span.line
            if not self._local_exists(local, displays):
                continue
            if common.kind == "value" and local.kind != "value":
                self.d.error("E0301", f"{_show(local)} is not an enum value, so its common name cannot be {_show(common)}", common.span,
                             hint="map a declaration to a name, an enum value to Enum.value or a name, a component to a text")
                continue
            cname = common.member if common.kind == "value" and common.member else common.name
            group = "text" if local.kind == "text" else local.name if local.kind == "value" else "name"
            ckey = (group, cname)
            if ckey in commons_seen:
                self.d.error("E0202", f"{_show(local)} and {commons_seen[ckey]} both stand for the common name '{cname}'", local.span,
                             hint="each common name stands for one local name")
                continue
            commons_seen[ckey] = _show(local)
            same.append((ir.EditionName(local.kind, local.name, local.member), ir.EditionName(common.kind, common.name, common.member), _src(src)))
        return ir.Edition(e.game, same, _src(e.source), e.span)

    def _local_exists(self, local: ast.EditionName, displays: set[str]) -> bool:
        if local.kind == "text":
            if local.name not in displays:
                self.d.error("E0201", f"no component is shown as \"{local.name}\"", local.span,
                             hint=self.suggest(local.name, sorted(displays)) or _listing("components", sorted(displays)))
                return False
            return True
        if local.kind == "value":
            enum = self.enums.get(local.name)
            if enum is None:
                self.d.error("E0201", f"unknown enum '{local.name}'", local.span, hint=self.suggest(local.name, self.enums) or _listing("enums", self.enums))
                return False
            if local.member not in enum.values:
                self.d.error("E0201", f"'{local.member}' is not a value of {local.name}", local.span,
                             hint=self.suggest(local.member or "", enum.values) or "values: " + ", ".join(enum.values))
                return False
            return True
        if local.name not in self.decl_spans:
            self.d.error("E0201", f"unknown name '{local.name}' in the edition mapping", local.span,
                         hint=self.suggest(local.name, list(self.decl_spans)) or "map the names this ruleset declares")
            return False
        return True


def _show(n: ast.EditionName) -> str:
    return n.name if n.kind == "name" else f"{n.name}.{n.member}" if n.kind == "value" else f'"{n.name}"'
