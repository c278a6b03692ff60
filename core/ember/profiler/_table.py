"""key_averages().table(): PyTorch's column layout (right-aligned columns 12 wide, two spaces apart;
Source Location left-aligned), units and "Self CPU time total" footer, for the CPU."""
from __future__ import annotations

import math

_WIDTH = 12
_SPACING = 2


def format_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _time(us, unit):
    if unit == "s":
        return f"{us / 1e6:.3f}s"
    if unit == "ms":
        return f"{us / 1e3:.3f}ms"
    if unit == "us":
        return f"{us:.3f}us"
    return format_time(us)


def format_memory(nbytes):
    for size, name in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {name}"
    return f"{nbytes} B"


def _share(part, total):
    if total == 0:
        return "NaN"
    return f"{part * 100.0 / total:.2f}%"


def _flops_scale(smallest):
    names = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
    power = int(max(0.0, min(math.log10(smallest) / 3, len(names) - 1.0)))
    return 10.0 ** (-3 * power), names[power]


def _trim_path(path, width):
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def build_table(events, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
                max_shapes_column_width=80, header=None, profile_memory=False, with_flops=False,
                top_level_events_only=False, time_unit=None):
    if len(events) == 0:
        return ""
    if sort_by is not None:
        key = sort_by.replace("cuda", "device").replace("xpu", "device")
        events = sorted(events, key=lambda e: getattr(e, key), reverse=True)
    has_shapes = any(e.input_shapes for e in events)
    stacks = [e.stack for e in events if e.stack]
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [_WIDTH] * (len(headers) - 1)
    aligns = [">"] * len(headers)
    if has_shapes:
        shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
        if max_shapes_column_width is not None:
            shapes_width = min(shapes_width, max_shapes_column_width)
        headers.append("Input Shapes")
        widths.append(shapes_width)
        aligns.append(">")
    if stacks:
        src_width = max(len(s) for stack in stacks for s in stack) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)
        headers.append("Source Location")
        widths.append(src_width)
        aligns.append("<")
    flops_scale = None
    if with_flops:
        positive = [e.flops for e in events if e.flops > 0]
        if positive:
            flops_scale, flops_name = _flops_scale(min(positive))
            headers.append(f"Total {flops_name}")
            widths.append(_WIDTH)
            aligns.append(">")
    row_format = "".join("{: " + a + str(w) + "}" + " " * _SPACING for a, w in zip(aligns, widths))
    separator = "".join("-" * w + " " * _SPACING for w in widths)
    line_length = sum(widths) + _SPACING * (len(widths) - 1)

    lines = []
    total_self = sum(e.self_cpu_time_total for e in events)
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _share(e.self_cpu_time_total, total_self), _time(e.self_cpu_time_total, time_unit),
               _share(e.cpu_time_total, total_self) if not e.is_async else 0, _time(e.cpu_time_total, time_unit),
               _time(e.cpu_time, time_unit)]
        if profile_memory:
            row += [format_memory(e.cpu_memory_usage), format_memory(e.self_cpu_memory_usage)]
        row.append(e.count)
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        if stacks:
            row.append(_trim_path(e.stack[0], src_width) if e.stack else "")
        if flops_scale is not None:
            row.append("--" if e.flops <= 0 else f"{e.flops * flops_scale:8.3f}")
        lines.append(row_format.format(*row))
        if stacks:  # the rest of the stack under Source Location, then a blank line
            src = headers.index("Source Location")
            for frame in (e.stack or [])[1:]:
                cells = [""] * len(headers)
                cells[src] = _trim_path(frame, src_width)
                lines.append(row_format.format(*cells))
            lines.append(row_format.format(*([""] * len(headers))))
    lines += [separator, f"Self CPU time total: {_time(total_self, time_unit)}"]
    return "".join(line + "\n" for line in lines)
