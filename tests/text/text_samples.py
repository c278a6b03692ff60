"""Text samples shared by embertext's tests (a module of its own: `conftest` is ambiguous across the
test folders)."""

import glob
import os
import sysconfig

# Varied text: accents, apostrophes, numbers, punctuation runs, CJK, emoji, every kind of white space,
# combining marks, control characters.
SAMPLE = (
    "Héllo wörld! It's 12,345.67 — naïve café's 'quoted' ΣΊΣΥΦΟΣ İstanbul\t\ttabs\n\n  spaces   \r\nend "
    "漢字かな 😀 \u00a0nbsp \u2028ls x\u0301y \x00ctl\x07 \ufffd Ǆ ﬁ ½ don't we'll they've I'd ''s"
    "  trailing   "
)


def stdlib_texts(count=40):
    files = sorted(glob.glob(os.path.join(sysconfig.get_paths()["stdlib"], "*.py")))[:count]
    texts = []
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            texts.append(fh.read())
    return texts
