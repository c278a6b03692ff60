"""ember.jit.script on classes: attributes typed by __init__, methods, objects constructed, passed, returned
and stored (lists, dicts, module attributes), magic methods, save/load, and the errors for what scripted
classes cannot have. Every scripted result is compared with the same code run eagerly."""
import subprocess
import sys
import textwrap
from typing import Dict, List, Optional

import pytest

import ember


@ember.jit.script
class Point:
    def __init__(self, x: float, y: float):
        self.x = x
        self.y = y
        self.tags: List[str] = []

    def norm2(self) -> float:
        return self.x * self.x + self.y * self.y

    def add(self, other: "Point") -> "Point":
        return Point(self.x + other.x, self.y + other.y)

    def tag(self, t: str) -> None:
        self.tags.append(t)

    def __eq__(self, other: "Point") -> bool:
        return self.x == other.x and self.y == other.y

    def __len__(self) -> int:
        return len(self.tags)

    def __getitem__(self, i: int) -> str:
        return self.tags[i]

    def __contains__(self, t: str) -> bool:
        return t in self.tags

    @staticmethod
    def origin() -> float:
        return 0.0


@ember.jit.script
class Counter:
    def __init__(self, name: str):
        self.name = name
        self.counts: Dict[str, int] = {}
        self.total = 0

    def add(self, w: str) -> None:
        self.counts[w] = self.counts.get(w, 0) + 1
        self.total += 1

    def __getitem__(self, w: str) -> int:
        return self.counts.get(w, 0)


def _same(fn, *args):
    out = ember.jit.script(fn)(*args)
    assert out == fn(*args)
    return out


def test_the_class_stays_the_python_class():
    assert isinstance(Point, type) and Point(1.0, 2.0).norm2() == 5.0


def test_construct_call_methods_mutate():
    def f(a: float) -> float:
        p = Point(a, 2.0)
        q = p.add(Point(1.0, 1.0))
        q.tag("hi")
        q.x += 1.0
        return q.norm2() + len(q) + float("hi" in q) + float(q == p) + Point.origin()

    assert _same(f, 3.0) == 5.0 * 5.0 + 3.0 * 3.0 + 1.0 + 1.0


def test_magic_methods():
    def f(n: int) -> List[str]:
        p = Point(1.0, 1.0)
        for i in range(n):
            p.tag(str(i))
        out = [p[0], p[n - 1]]
        if "1" in p and "x" not in p and p == Point(1.0, 1.0) and p != Point(0.0, 1.0):
            out.append(str(len(p)))
        return out

    assert _same(f, 3) == ["0", "2", "3"]


def test_objects_passed_returned_and_in_containers():
    def f(p: Point, ps: List[Point]) -> Point:
        s = Point(0.0, 0.0)
        for q in ps:
            s = s.add(q)
        return s.add(p)

    r = ember.jit.script(f)(Point(1.0, 2.0), [Point(3.0, 4.0), Point(5.0, 6.0)])
    assert type(r) is Point and (r.x, r.y, r.tags) == (9.0, 12.0, [])

    def g(n: int) -> Dict[str, Point]:
        d: Dict[str, Point] = {}
        for i in range(n):
            d[str(i)] = Point(float(i), 0.0)
        return d

    out = ember.jit.script(g)(2)
    assert {k: (v.x, v.y) for k, v in out.items()} == {"0": (0.0, 0.0), "1": (1.0, 0.0)}


def test_objects_are_shared_as_python_shares_them():
    def f() -> int:
        c = Counter("c")
        alias = c
        alias.add("a")
        cs = [c, c]
        cs[1].add("b")
        return c.total * 10 + c["a"] + c["z"]

    assert _same(f) == 21  # total 2, one "a"


def test_optional_object():
    def f(flag: bool) -> float:
        p: Optional[Point] = None
        if flag:
            p = Point(3.0, 4.0)
        if p is None:
            return -1.0
        return p.norm2()

    assert _same(f, True) == 25.0 and _same(f, False) == -1.0


class Holder(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.counter = Counter("main")
        for w in ("a", "a", "b"):
            self.counter.add(w)
        self.others = [Counter("xy"), Counter("zzz")]
        self.scale = ember.nn.Parameter(ember.tensor([2.0]))

    def forward(self, words: List[str]) -> ember.Tensor:
        total = 0
        for w in words:
            total += self.counter[w]
        for o in self.others:
            total += len(o.name)
        return self.scale * total


def test_module_holding_objects_and_save_load(tmp_path):
    m = Holder()
    sm = ember.jit.script(m)
    words = ["a", "b", "q"]
    assert sm(words).tolist() == m(words).tolist() == [2.0 * (3 + 5)]
    path = tmp_path / "holder.pt"
    sm.save(str(path))
    loaded = ember.jit.load(str(path))
    assert loaded(words).tolist() == [16.0]
    code = f"import ember; m = ember.jit.load({str(path)!r}); print(m(['a', 'a']).item()); print(m.counter.counts)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "18.0" and out[1] == "{'a': 2, 'b': 1}"


def test_function_returning_objects_saves_and_loads(tmp_path):
    def make(n: int) -> List[Point]:
        return [Point(float(i), float(i * i)) for i in range(n)]

    path = tmp_path / "make.pt"
    ember.jit.save(ember.jit.script(make), str(path))
    code = f"import ember; f = ember.jit.load({str(path)!r}); print([(p.x, p.y) for p in f(3)])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[(0.0, 0.0), (1.0, 1.0), (2.0, 4.0)]"


def _script_source(tmp_path, monkeypatch, source: str, name: str):
    """Scripts `name` from source written to a file (the compiler reads classes' source)."""
    path = tmp_path / f"mod_{name}.py"
    path.write_text(textwrap.dedent(source))
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"mod_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, mod)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


@pytest.mark.parametrize("member, line, col, msg", [
    ("    @property\n    def y(self) -> int:\n        return 1\n", 7, 6, "@property"),
    ("    @classmethod\n    def c(cls) -> int:\n        return 1\n", 7, 6, "@classmethod"),
    ("    z = [3]\n", 7, 5, "Assign statement"),
])
def test_unsupported_members_are_named_where_written(tmp_path, monkeypatch, member, line, col, msg):
    src = "import ember\n\n\nclass Bad:\n    def __init__(self):\n        self.x = 1\n" + member
    cls = _script_source(tmp_path, monkeypatch, src, "Bad")
    with pytest.raises(ember.jit.NotSupportedError, match=msg) as e:
        ember.jit.script(cls)
    assert f"line {line}, column {col}" in str(e.value)


def test_errors_name_the_line():
    def reads_missing() -> int:
        return Point(1.0, 2.0).z

    with pytest.raises(RuntimeError, match="has no attribute or method 'z'. Did you forget to initialize") as e:
        ember.jit.script(reads_missing)
    assert "line" in str(e.value) and "<--- HERE" in str(e.value)

    def assigns_undeclared(p: Point) -> None:
        p.w = 1.0

    with pytest.raises(RuntimeError, match="attributes are declared by assigning them in __init__"):
        ember.jit.script(assigns_undeclared)

    def wrong_type(p: Point) -> None:
        p.x = "s"

    with pytest.raises(RuntimeError, match="the attribute 'x' has type float"):
        ember.jit.script(wrong_type)

    def no_magic(c: Counter) -> int:
        return len(c)

    with pytest.raises(RuntimeError, match="has no method '__len__'"):
        ember.jit.script(no_magic)


def test_wrong_argument_object_is_a_type_error():
    def f(p: Point) -> float:
        return p.x

    with pytest.raises(TypeError, match="expected an object of"):
        ember.jit.script(f)(Counter("c"))
