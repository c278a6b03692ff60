"""The script compiler's errors: each names the file, line and column and shows the source line with
the offending range marked, as TorchScript's do."""
from __future__ import annotations

import ast


class SourceContext:
    """Where one function's source came from: its file and the offsets of its dedented text."""

    def __init__(self, filename: str, lines: list[str], first_line: int, col_offset: int, fn_name: str):
        self.filename, self.lines, self.first_line = filename, lines, first_line
        self.col_offset, self.fn_name = col_offset, fn_name

    def highlight(self, node: ast.AST | None) -> str:
        if node is None or not hasattr(node, "lineno"):
            return f'  File "{self.filename}", in {self.fn_name}'
        line = self.first_line + node.lineno - 1
        col = node.col_offset + self.col_offset
        text = self.lines[node.lineno - 1] if node.lineno - 1 < len(self.lines) else ""
        end = node.end_col_offset if getattr(node, "end_lineno", None) == node.lineno else len(text)
        width = max(1, (end or node.col_offset + 1) - node.col_offset)
        shown = " " * self.col_offset + text
        return (f'  File "{self.filename}", line {line}, column {col + 1}, in {self.fn_name}\n'
                f"    {shown}\n    {' ' * col}{'~' * width} <--- HERE")


class FrontendError(Exception):
    """A program the script compiler cannot compile."""

    def __init__(self, msg: str, ctx: SourceContext | None = None, node: ast.AST | None = None):
        self.msg = msg
        super().__init__(msg + (":\n" + ctx.highlight(node) if ctx is not None else ""))


class NotSupportedError(FrontendError):
    """A Python construct the script language does not have."""


class ScriptTypeError(FrontendError, RuntimeError):
    """A type error in a scripted program (RuntimeError, as TorchScript's compile errors are)."""
