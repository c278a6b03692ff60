"""Compare: many Measurements as tables, one per label: a row per (threads, env, sub_label or stmt),
a column per description, in the layout torch.utils.benchmark.Compare prints, with optional colour
(best/good/bad per row or column), trimmed significant figures and variance warnings."""
import enum
import math

from . import common

__all__ = ["Colorize", "Compare"]

BEST, GOOD, BAD, VERY_BAD = "\033[92m", "\033[34m", "\033[2m\033[91m", "\033[31m"
BOLD, TERMINATE = "\033[1m", "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(value):
    return int(math.ceil(math.log10(value))) if value > 0 else 1


def _paint(text, value, best):
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + text + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + text + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + text + TERMINATE * 2
    if value >= best * 2:
        return BAD + text + TERMINATE * 2
    return text


class _Table:
    def __init__(self, results, colorize, trim, highlight):
        self.results, self.colorize, self.trim = results, colorize, trim
        self.highlight = highlight and any(r.has_warnings for r in results)
        self.label = results[0].label
        self.unit, self.scale = common.select_unit(min(r.median for r in results))
        rows = common.ordered_unique((r.num_threads, r.env, r.as_row_name) for r in results)
        self.row_keys = sorted(rows, key=lambda k: (k[0], k[1]))  # stable: statements keep their order
        self.col_keys = common.ordered_unique(r.description for r in results)
        self.cells = {(r.num_threads, r.env, r.as_row_name, r.description): r for r in results}
        self.formats = [self._column_format(c) for c in self.col_keys]

    def _column_format(self, col):
        ms = [m for k in self.row_keys if (m := self.cells.get(k + (col,)))]
        digits = [_leading_digits(m.median / self.scale) for m in ms]
        decimals = min(max(m.significant_figures - d, 0) for m, d in zip(ms, digits)) if self.trim else 1
        width = max(digits) + decimals + (1 if decimals else 0)
        return width, decimals

    def _cell(self, m, fmt):
        width, decimals = fmt
        extra = 7 if self.highlight else 0
        if m is None:
            return " " * (width + extra)
        value = m.median / self.scale
        if self.trim:
            value = common.trim_sigfig(value, m.significant_figures)
        note = f" (! {m.iqr / m.median * 100:.0f}%)" if self.highlight and m.has_warnings else ""
        return f"{value:>{width}.{decimals}f}" + f"{note:>{extra}}"

    def render(self):
        envs = common.ordered_unique(r.env for r in self.results)
        show_env = len(envs) > 1
        env_width = max(len(e) for e in envs) if show_env else 0
        header = [""] + [c or "" for c in self.col_keys]
        body, prior_env, prior_threads = [], None, None
        for key in self.row_keys:
            threads, env, name = key
            if threads != prior_threads:
                prior_env = None
            env_text = f"({env})" if show_env and env != prior_env else ""
            cells = [self.cells.get(key + (c,)) for c in self.col_keys]
            text = ["  " + env_text.ljust(env_width + 4) + name]
            text += [self._cell(m, f) for m, f in zip(cells, self.formats)]
            body.append((key, cells, text, threads != prior_threads))
            prior_env, prior_threads = env, threads
        widths = [max(len(r[i]) for r in [header] + [b[2] for b in body]) for i in range(len(header))]
        lines = ["  |  ".join(h.center(w) for h, w in zip(header, widths))]
        overall = len(lines[0])
        best_by_col = {}
        for key, cells, text, new_group in body:
            if new_group:
                lines.append(f"{key[0]} threads: ".ljust(overall, "-"))
            row = [text[0].ljust(widths[0])]
            row_best = min(m.median for m in cells if m is not None)
            for j, (m, t, w) in enumerate(zip(cells, text[1:], widths[1:])):
                t = t.center(w)
                if m is not None and self.colorize != Colorize.NONE:
                    if self.colorize == Colorize.ROWWISE:
                        best = row_best
                    else:
                        best = best_by_col.setdefault((key[0], j), min(
                            c.median for k in self.row_keys if k[0] == key[0]
                            and (c := self.cells.get(k + (self.col_keys[j],))) is not None))
                    t = _paint(t, m.median, best)
                row.append(t)
            lines.append("  |  ".join(row))
        title = f"[{(' ' + (self.label or '') + ' ').center(overall - 2, '-')}]"
        foot = [f"Times are in {common.unit_to_english(self.unit)}s ({self.unit})."]
        if self.highlight:
            foot.append("(! XX%) Measurement has high variance, where XX is the IQR / median * 100.")
        contended = [r for r in self.results if r.contended]
        if contended:
            worst = max(r.contention for r in contended)
            foot.append(f"{len(contended)} of {len(self.results)} measurements ran while other processes used up to "
                        f"{worst * 100:.0f}% of the CPU.")
        return "\n".join([title] + lines + foot) + "\n"


class Compare:
    """Prints Measurements as tables (grouped by label; replicates of one task merged)."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def extend_results(self, results):
        results = list(results)
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def __str__(self):
        return "\n".join(self._render())

    def _render(self):
        groups = {}
        for m in common.Measurement.merge(self._results):
            groups.setdefault(m.label, []).append(m)
        return [_Table(g, self._colorize, self._trim_significant_figures, self._highlight_warnings).render()
                for g in groups.values()]
