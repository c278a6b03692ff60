"""export_html's report: one self-contained file (no network references) that headless Chromium
(Debian's, installed by `make test`) renders with the timeline bars, the memory curve and the op
table; the screenshot is checked pixel by pixel for each."""
import json
import re
import shutil
import subprocess

import numpy as np
from PIL import Image

import ember
from ember.profiler import profile, record_function


def _profile_something():
    model = ember.nn.Sequential(ember.nn.Linear(64, 256), ember.nn.ReLU(), ember.nn.Linear(256, 10))
    x = ember.randn(128, 64)
    with profile(profile_memory=True, record_shapes=True) as prof:
        for _ in range(3):
            with record_function("step"):
                model(x).sum().backward()
    return prof


def test_report_is_self_contained_and_holds_the_profile(tmp_path):
    prof = _profile_something()
    path = tmp_path / "report.html"
    prof.export_html(str(path))
    page = path.read_text()
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", page)  # nothing fetched from anywhere
    data = json.loads(re.search(r"const DATA = (.*?);\n", page).group(1).replace("<\\/", "</"))
    names = [e[0] for e in data["events"]]
    assert names.count("step") == 3 and names.count("aten::addmm") == 6
    assert len(data["memory"]["t"]) == len(prof._memory_events) > 0
    assert {row[0] for row in data["table"]} == {a.key for a in prof.key_averages()}


def test_report_renders_in_headless_chromium(tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    assert browser, "headless Chromium is needed (make test installs Debian's chromium package)"
    prof = _profile_something()
    report = tmp_path / "report.html"
    prof.export_html(str(report))
    shot = tmp_path / "shot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={shot}", "--window-size=1200,1000", "--virtual-time-budget=2000",
                    report.as_uri()], check=True, capture_output=True, timeout=120)
    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    # the memory curve is drawn in #cc3333
    curve = (abs(r - 0xcc) < 20) & (abs(g - 0x33) < 20) & (abs(b - 0x33) < 20)
    assert curve.sum() > 100
    # the timeline's bars are saturated colours (hsl(h, 55%, 62%)): many pixels far from grey
    saturated = (np.max(img, axis=-1) - np.min(img, axis=-1)) > 60
    assert saturated.sum() - curve.sum() > 2000
    # the curve lies below the timeline's bars
    curve_rows = np.nonzero(curve.any(axis=1))[0]
    bar_rows = np.nonzero((saturated & ~curve).sum(axis=1) > 20)[0]
    assert bar_rows.min() < curve_rows.min()
