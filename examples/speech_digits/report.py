"""Word error counting and the README's figure (an SVG drawn here: no plotting library needed)."""


def word_errors(ref, hyp):
    """Levenshtein distance between two word lists (substitutions, insertions, deletions)."""
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h))
        prev = cur
    return prev[-1]


def write_figure(history, unseen, path, width=520, height=260):
    """Training loss and held-out WER per epoch, plus the unseen voice's final WER as a marker."""
    pad = 40
    epochs = [h["epoch"] for h in history]
    x_max = max(epochs) if epochs else 1

    def px(e):
        return pad + (width - 2 * pad) * (e / x_max)

    def py(v, top):
        return height - pad - (height - 2 * pad) * min(v / top, 1.0)

    loss_top = max(h["loss"] for h in history) or 1.0

    def line(values, top, colour):
        pts = " ".join(f"{px(e):.1f},{py(v, top):.1f}" for e, v in zip(epochs, values))
        return f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{pts}"/>'

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
             f'font-size="11">', f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="black"/>',
             f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="black"/>',
             line([h["loss"] for h in history], loss_top, "#888"),
             line([h["test_wer_greedy"] for h in history], 1.0, "#1f77b4"),
             line([h["test_wer_beam"] for h in history], 1.0, "#ff7f0e")]
    parts.append(f'<circle cx="{px(x_max):.1f}" cy="{py(unseen[0], 1.0):.1f}" r="4" fill="#d62728"/>')
    for k in range(0, 101, 25):
        parts.append(f'<text x="{pad - 4}" y="{py(k / 100, 1.0) + 4:.1f}" text-anchor="end">{k}%</text>')
    for e in epochs:
        parts.append(f'<text x="{px(e):.1f}" y="{height - pad + 14}" text-anchor="middle">{e}</text>')
    legend = [("#888", f"CTC loss (top = {loss_top:.1f})"), ("#1f77b4", "held-out WER, greedy"),
              ("#ff7f0e", "held-out WER, beam"), ("#d62728", "unseen voice WER (final)")]
    for i, (colour, label) in enumerate(legend):
        y = pad - 26 + 12 * i
        parts.append(f'<rect x="{width - 200}" y="{y - 8}" width="10" height="8" fill="{colour}"/>')
        parts.append(f'<text x="{width - 186}" y="{y}">{label}</text>')
    parts.append(f'<text x="{width / 2}" y="{height - 8}" text-anchor="middle">epoch</text></svg>')
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
