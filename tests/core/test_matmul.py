"""Matrix products beyond the generic opdb samples: einsum equations (with '...', repeated and
implicit labels, 3+ operands, the sublist form) against np.einsum, the contraction planner,
broadcast batches and strided (transposed, sliced, expanded) operands against np.matmul, out= and
in-place forms, beta=0 ignoring NaN, integer wrap-around, OpenBLAS following set_num_threads, and
PyTorch's errors for bad shapes and dtypes."""
import numpy as np
import pytest

import ember

RNG = np.random.default_rng(3)


def rand(*shape, dtype=np.float64):
    a = RNG.uniform(-1, 1, size=shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.uniform(-1, 1, size=shape)
    return a.astype(dtype)


def close(got, want, rtol=1e-10, atol=1e-12):
    got = got.numpy() if isinstance(got, ember.Tensor) else got
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- einsum

EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 3, 4), (3, 4, 2)]),
    ("...ij,jk", [(2, 3, 4), (4, 5)]),
    ("i...j,j...->...i", [(3, 2, 4), (4, 2)]),
    ("...i,...i->...", [(2, 1, 5), (3, 5)]),
    ("ii...->i...", [(3, 3, 2)]),
    ("iij,jk->ik", [(3, 3, 4), (4, 2)]),
    ("ijk,kji->", [(2, 3, 4), (4, 3, 2)]),
    ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("ab,bc,ca->", [(3, 4), (4, 5), (5, 3)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("bhqk,bhkd->bqhd", [(2, 3, 4, 6), (2, 3, 6, 5)]),
    ("i,j,k->ijk", [(2,), (3,), (4,)]),
    ("i,j,k,l->", [(2,), (3,), (4,), (5,)]),
    ("ijk,jl,kl->il", [(3, 4, 5), (4, 6), (5, 6)]),
    ("a,ab,bc,c->", [(3,), (3, 4), (4, 5), (5,)]),
    ("xyz,yz,z->x", [(2, 3, 4), (3, 4), (4,)]),
    ("zyx,xy->zy", [(2, 3, 4), (4, 3)]),
    ("ij,ij,ij->", [(3, 4), (3, 4), (3, 4)]),
    ("ji", [(2, 3)]),
    ("ba", [(2, 3)]),
    ("iIj,Ij->i", [(2, 3, 4), (3, 4)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.int64])
def test_einsum_against_numpy(eq, shapes, dtype):
    arrays = [rand(*s, dtype=np.float64) * (10 if dtype == np.int64 else 1) for s in shapes]
    arrays = [a.astype(dtype) if dtype != np.complex128 else a + 1j * rand(*a.shape) for a in arrays]
    got = ember.einsum(eq, *[ember.tensor(a) for a in arrays])
    want = np.einsum(eq, *arrays)
    close(got, want)
    assert got.dtype == ember.tensor(arrays[0]).dtype


def test_einsum_operand_forms():
    a, b = rand(2, 3), rand(3, 4)
    ta, tb = ember.tensor(a), ember.tensor(b)
    want = a @ b
    close(ember.einsum("ij,jk->ik", [ta, tb]), want)
    close(ember.einsum("ij,jk->ik", (ta, tb)), want)
    close(ember.einsum(ta, [0, 1], tb, [1, 2], [0, 2]), want)
    close(ember.einsum(ta, [0, 1], tb, [1, 2]), want)  # implicit output
    c = rand(2, 3, 4)
    close(ember.einsum(ember.tensor(c), [Ellipsis, 1, 2], [2, Ellipsis]), np.einsum(c, [Ellipsis, 1, 2], [2, Ellipsis]))


def test_einsum_float32_and_strided_operands():
    a = rand(6, 4).astype(np.float32)
    b = rand(5, 6).astype(np.float32)
    ta, tb = ember.tensor(a), ember.tensor(b)
    close(ember.einsum("ji,kj->ik", ta, tb), np.einsum("ji,kj->ik", a, b), rtol=1e-5, atol=1e-5)
    close(ember.einsum("ij,jk->ik", ta.t(), tb.t()), a.T @ b.T, rtol=1e-5, atol=1e-5)
    close(ember.einsum("i,i->", ta[::2, 1], tb[1, ::2]), a[::2, 1] @ b[1, ::2], rtol=1e-5, atol=1e-5)


def test_einsum_size_one_dims_broadcast():
    a, b = rand(3, 1), rand(1, 4)
    close(ember.einsum("ij,ij->ij", ember.tensor(a), ember.tensor(b)), a * b)
    v = rand(3)
    close(ember.einsum("i,i->", ember.tensor(v), ember.tensor(np.array([2.0]))), np.asarray(2.0 * v.sum()))


def test_einsum_planner_keeps_intermediates_small():
    # Left to right, 'i,j,ij->' would build the 3000 x 3000 outer product of the vectors first
    # (72 MB); the greedy planner contracts the matrix with one vector first (24 kB).
    n = 3000
    a, b, c = rand(n), rand(n), rand(n, n)
    ta, tb, tc = ember.tensor(a), ember.tensor(b), ember.tensor(c)
    ember._C._cpu_empty_cache()
    got = ember.einsum("i,j,ij->", ta, tb, tc)
    cached = ember._C._cpu_cached_bytes()  # the blocks freed by einsum's intermediates
    np.testing.assert_allclose(float(got.numpy()), np.einsum("i,j,ij->", a, b, c), rtol=1e-7)
    assert cached < 8 * 1024 * 1024, f"einsum left {cached} bytes of intermediates"


def test_einsum_returns_view_for_permutation():
    t = ember.tensor(rand(2, 3))
    r = ember.einsum("ij->ji", t)
    close(r, t.numpy().T)


@pytest.mark.parametrize("eq,shapes,msg", [
    ("ij,jk->ik", [(2, 3)], "fewer operands"),
    ("ij->ij", [(2, 3), (3, 4)], "more operands"),
    ("ijk->ij", [(2, 3)], "does not match the number of dimensions"),
    ("ij...k->", [(2, 3)], "is more than the number of dimensions"),
    ("i1,i->", [(2,), (2,)], "invalid subscript"),
    ("i.j->", [(2, 3)], "not part of any ellipsis"),
    ("...i...->", [(2, 3)], "ellipsis was already found"),
    ("ij->k", [(2, 3)], "output subscript k does not appear"),
    ("ij->ii", [(2, 3)], "appears more than once in the output"),
    ("ii->i", [(2, 3)], "is repeated for operand 0 but the sizes don't match"),
    ("ij,jk->ik", [(2, 3), (4, 5)], "do not broadcast"),
])
def test_einsum_errors(eq, shapes, msg):
    with pytest.raises(RuntimeError, match=msg):
        ember.einsum(eq, *[ember.tensor(rand(*s)) for s in shapes])


def test_einsum_dtype_mismatch_and_no_operands():
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.einsum("i,i->", ember.tensor(rand(3)), ember.tensor(rand(3).astype(np.float32)))
    with pytest.raises(RuntimeError, match="at least one operand"):
        ember.einsum("i", [])


# ---------------------------------------------------------------- matmul, broadcasting, strides

BROADCAST = [((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 4), (2, 4, 5)), ((3, 4), (2, 2, 4, 5)), ((4,), (2, 3, 4, 5)),
             ((2, 3, 3, 4), (4,)), ((3, 1, 4), (1, 3, 4, 2)), ((1, 1, 2, 3), (3, 2)), ((0, 2, 3), (3, 4)),
             ((2, 0, 3), (1, 3, 4))]


@pytest.mark.parametrize("sa,sb", BROADCAST)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128, np.int32, np.int64])
def test_matmul_broadcast_batches(sa, sb, dtype):
    a = (rand(*sa) * 10).astype(dtype) if np.dtype(dtype).kind == "i" else rand(*sa, dtype=dtype)
    b = (rand(*sb) * 10).astype(dtype) if np.dtype(dtype).kind == "i" else rand(*sb, dtype=dtype)
    tol = 1e-5 if dtype in (np.float32, np.complex64) else 1e-12
    close(ember.matmul(ember.tensor(a), ember.tensor(b)), np.matmul(a, b), rtol=tol, atol=tol)
    close(ember.tensor(a) @ ember.tensor(b), a @ b, rtol=tol, atol=tol)


def _views(t):
    """Differently strided views of a 3 x 4 block: contiguous, transposed twice, sliced, expanded."""
    return {
        "contig": t,
        "from_T": t.t().contiguous().t(),
        "sliced": ember.tensor(np.pad(t.numpy(), ((0, 1), (0, 3))))[:3, :4],
        "step": ember.tensor(np.repeat(t.numpy(), 2, axis=1))[:, ::2],
        "rowstep": ember.tensor(np.repeat(t.numpy(), 2, axis=0))[::2, :],
    }


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128, np.int64, np.float16])
def test_mm_strided_operands(dtype):
    a = (rand(3, 4) * 5).astype(dtype) if np.dtype(dtype).kind == "i" else rand(3, 4, dtype=dtype)
    b = (rand(4, 3) * 5).astype(dtype) if np.dtype(dtype).kind == "i" else rand(4, 3, dtype=dtype)
    ta, tb = ember.tensor(a), ember.tensor(b)
    tol = 1e-12 if dtype in (np.float64, np.complex128, np.int64) else (2e-3 if dtype == np.float16 else 1e-5)
    for na, va in _views(ta).items():
        for nb, vb in _views(tb.t()).items():   # vb is 3 x 4; use its transpose as the 4 x 3 operand
            close(ember.mm(va, vb.t()), a.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
                  @ b.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64), rtol=tol, atol=tol)


def test_mm_expanded_and_negative_strides():
    a = rand(1, 4)
    ta = ember.tensor(a).expand(3, 4)  # stride 0 rows
    b = rand(4, 5)
    close(ember.mm(ta, ember.tensor(b)), np.broadcast_to(a, (3, 4)) @ b)
    col = ember.tensor(rand(4, 1)).expand(4, 5)  # stride 0 columns
    close(ember.mm(ember.tensor(rand(3, 4) * 0 + 1), col), np.ones((3, 4)) @ np.broadcast_to(col.numpy(), (4, 5)))
    f = ember.tensor(b).flip(0)
    close(ember.mm(ember.tensor(rand(3, 4) * 0 + 2), f), 2 * np.ones((3, 4)) @ b[::-1])


def test_matmul_big_float64_matches_numpy():
    a, b = rand(130, 257), rand(257, 66)
    close(ember.matmul(ember.tensor(a), ember.tensor(b)), a @ b, rtol=1e-11, atol=1e-11)
    close(ember.matmul(ember.tensor(a.T.copy()).t(), ember.tensor(b)), a @ b, rtol=1e-11, atol=1e-11)


def test_bmm_many_small_batches_parallel():
    a, b = rand(300, 4, 5), rand(300, 5, 3)
    close(ember.bmm(ember.tensor(a), ember.tensor(b)), a @ b)
    # batch dim strided (every other matrix) and matrices transposed
    ta = ember.tensor(rand(600, 5, 4))[::2].transpose(1, 2)
    close(ember.bmm(ta, ember.tensor(b)), ta.numpy() @ b)


def test_half_and_bfloat16_go_through_float32():
    a, b = rand(8, 16), rand(16, 4)
    for dt in (ember.float16, ember.bfloat16):
        ta, tb = ember.tensor(a).to(dt), ember.tensor(b).to(dt)
        got = ember.mm(ta, tb)
        assert got.dtype == dt
        want = ta.to(ember.float64).numpy() @ tb.to(ember.float64).numpy()
        tol = 4e-3 if dt == ember.float16 else 2e-2
        close(got.to(ember.float64), want, rtol=tol, atol=tol)


def test_integer_products_wrap_like_numpy():
    a = np.full((2, 3), 100, np.int8)
    b = np.full((3, 2), 100, np.int8)
    close(ember.mm(ember.tensor(a), ember.tensor(b)), a @ b)
    x = np.array([2 ** 62, 3], np.int64)
    close(ember.dot(ember.tensor(x), ember.tensor(x)), np.dot(x, x))
    u = np.array([[200, 100]], np.uint8)
    close(ember.mv(ember.tensor(u), ember.tensor(np.array([3, 1], np.uint8))), u @ np.array([3, 1], np.uint8))


# ---------------------------------------------------------------- add* forms, out=, in-place

def test_beta_zero_ignores_nan_input():
    nan = ember.full((2, 4), float("nan"), dtype=ember.float64)
    a, b = rand(2, 3), rand(3, 4)
    close(ember.addmm(nan, ember.tensor(a), ember.tensor(b), beta=0), a @ b)
    close(
        ember.addmv(ember.full((2,), float("nan"), dtype=ember.float64), ember.tensor(a), ember.tensor(rand(3)), beta=0)
        .isnan()
        .numpy(),
        np.zeros(2, bool),
    )
    bn = ember.full((2, 2, 4), float("nan"), dtype=ember.float64)
    b1, b2 = rand(2, 2, 3), rand(2, 3, 4)
    close(ember.baddbmm(bn, ember.tensor(b1), ember.tensor(b2), beta=0), b1 @ b2)
    close(
        ember.addbmm(ember.full((2, 4), float("nan"), dtype=ember.float64), ember.tensor(b1), ember.tensor(b2), beta=0),
        (b1 @ b2).sum(0),
    )
    # an out= full of NaN (as uninitialized memory may be) is overwritten, not accumulated into
    out = ember.full((2, 4), float("nan"), dtype=ember.float64)
    ember.mm(ember.tensor(a), ember.tensor(b), out=out)
    close(out, a @ b)


def test_out_forms():
    a, b = rand(2, 3), rand(3, 4)
    out = ember.empty(0, dtype=ember.float64)
    r = ember.mm(ember.tensor(a), ember.tensor(b), out=out)
    assert r is out
    close(out, a @ b)
    out = ember.empty(7, dtype=ember.float64)
    ember.matmul(ember.tensor(rand(2, 2, 3)), ember.tensor(b), out=out)
    assert tuple(out.shape) == (2, 2, 4)
    # a transposed out= of the right shape keeps its strides and gets the right values
    base = ember.zeros(4, 2, dtype=ember.float64)
    ember.mm(ember.tensor(a), ember.tensor(b), out=base.t())
    close(base.t(), a @ b)
    v = ember.empty(0, dtype=ember.float64)
    ember.dot(ember.tensor(rand(3)), ember.tensor(rand(3)), out=v)
    assert v.dim() == 0
    with pytest.raises(RuntimeError, match="dtype"):
        ember.mm(ember.tensor(a), ember.tensor(b), out=ember.empty(2, 4, dtype=ember.float32))


def test_out_aliasing_an_input():
    a = ember.tensor(rand(3, 3))
    want = a.numpy() @ a.numpy()
    ember.mm(a, a, out=a)
    close(a, want)
    x = ember.tensor(rand(3, 3))
    want = 0.5 * x.numpy() + x.numpy() @ x.numpy()
    x.addmm_(x, x, beta=0.5)
    close(x, want)


def test_inplace_forms():
    inp, a, b = rand(2, 4), rand(2, 3), rand(3, 4)
    t = ember.tensor(inp)
    r = t.addmm_(ember.tensor(a), ember.tensor(b), beta=2, alpha=3)
    assert r is t
    close(t, 2 * inp + 3 * (a @ b))
    v, vec = ember.tensor(rand(2)), rand(3)
    want = v.numpy() + a @ vec
    v.addmv_(ember.tensor(a), ember.tensor(vec))
    close(v, want)
    bi, b1, b2 = rand(2, 2, 4), rand(2, 2, 3), rand(2, 3, 4)
    t = ember.tensor(bi)
    t.baddbmm_(ember.tensor(b1), ember.tensor(b2), alpha=-1)
    close(t, bi - b1 @ b2)
    t = ember.tensor(bi[0])
    t.addbmm_(ember.tensor(b1), ember.tensor(b2))
    close(t, bi[0] + (b1 @ b2).sum(0))
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ember.tensor(rand(4)).addmm_(ember.tensor(a), ember.tensor(b))


def test_integer_alpha_beta_rules():
    ti = ember.tensor(np.ones((2, 2), np.int64))
    with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
        ember.addmm(ti, ti, ti, alpha=0.5)
    with pytest.raises(RuntimeError, match="beta must not be a floating point"):
        ember.addmm(ti, ti, ti, beta=0.5)
    close(ember.addmm(ti, ti, ti, beta=3, alpha=2), np.full((2, 2), 7))


# ---------------------------------------------------------------- other products

def test_tensordot_forms():
    a, b = rand(3, 4, 5), rand(4, 5, 6)
    ta, tb = ember.tensor(a), ember.tensor(b)
    close(ember.tensordot(ta, tb), np.tensordot(a, b))
    close(ember.tensordot(ta, tb, dims=([1, 2], [0, 1])), np.tensordot(a, b, axes=([1, 2], [0, 1])))
    close(ember.tensordot(ta, tb, dims=(1, 0)), np.tensordot(a, b, axes=(1, 0)))
    close(ember.tensordot(ta, tb, dims=0), np.tensordot(a, b, axes=0))
    out = ember.empty(0, dtype=ember.float64)
    ember.tensordot(ta, tb, dims=2, out=out)
    close(out, np.tensordot(a, b))
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        ember.tensordot(ta, tb, dims=([0], [0]))
    with pytest.raises(RuntimeError, match="same length"):
        ember.tensordot(ta, tb, dims=([0, 1], [0]))
    with pytest.raises(RuntimeError, match="dims >= 0"):
        ember.tensordot(ta, tb, dims=-1)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        ember.tensordot(ta, ember.tensor(rand(4, 4)), dims=([1, 1], [0, 1]))


def test_outer_kron_trace_promote_and_check():
    x = ember.tensor(np.array([1, 2, 3], np.int64))
    y = ember.tensor(np.array([0.5, 1.5]))
    r = ember.outer(x, y)
    assert r.dtype == ember.float64
    close(r, np.outer([1, 2, 3], [0.5, 1.5]))
    close(ember.ger(x, y), np.outer([1, 2, 3], [0.5, 1.5]))
    close(ember.kron(x, y), np.kron([1, 2, 3], [0.5, 1.5]))
    t = ember.tensor(np.array([[True, False], [True, True]]))
    tr = ember.trace(t)
    assert tr.dtype == ember.int64 and int(tr.numpy()) == 2
    assert ember.trace(ember.tensor(np.eye(3, dtype=np.float32))).dtype == ember.float32
    s = ember.tensor(rand(4, 4))[::2, ::2]  # strided diagonal
    assert abs(float(ember.trace(s).numpy()) - np.trace(s.numpy())) < 1e-12
    with pytest.raises(RuntimeError, match="trace: expected a matrix"):
        ember.trace(x)
    with pytest.raises(RuntimeError, match="outer: Expected 1-D argument self"):
        ember.outer(ember.tensor(rand(2, 2)), y)


def test_vdot_conjugates_first():
    a, b = rand(4, dtype=np.complex128), rand(4, dtype=np.complex128)
    close(ember.vdot(ember.tensor(a), ember.tensor(b)), np.vdot(a, b))
    close(ember.dot(ember.tensor(a), ember.tensor(b)), np.dot(a, b))
    s = ember.tensor(rand(8, dtype=np.complex64)).flip(0)[::2]  # reversed, strided
    close(ember.vdot(s, s), np.vdot(s.numpy(), s.numpy()), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- errors

def _t(*shape, dtype=np.float32):
    return ember.tensor(np.ones(shape, dtype))


@pytest.mark.parametrize("fn,msg", [
    (lambda: ember.mm(_t(2, 3), _t(4, 5)), r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
    (lambda: ember.mm(_t(2, 3), _t(3, 4, dtype=np.float64)),
     "expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda: ember.mm(_t(3), _t(3, 4)), "self must be a matrix"),
    (lambda: ember.mm(_t(2, 3), _t(3)), "mat2 must be a matrix"),
    (lambda: ember.matmul(_t(), _t(2, 3)), "both arguments to matmul need to be at least 1D, but they are 0D and 2D"),
    (lambda: ember.matmul(_t(3), _t()), "but they are 1D and 0D"),
    (lambda: ember.matmul(_t(3), _t(4, 5)), r"mat1 and mat2 shapes cannot be multiplied \(1x3 and 4x5\)"),
    (lambda: ember.matmul(_t(2, 3, 4), _t(5, 6)), r"mat1 and mat2 shapes cannot be multiplied \(6x4 and 5x6\)"),
    (lambda: ember.matmul(_t(2, 3, 4), _t(2, 5, 6)), "Expected size for first two dimensions of batch2 tensor"),
    (lambda: ember.matmul(_t(2, 3, 4), _t(3, 4, 6)), "must match the size"),
    (lambda: ember.matmul(_t(3), _t(4)), "inconsistent tensor size"),
    (lambda: ember.bmm(_t(2, 3), _t(2, 3, 4)), "batch1 must be a 3D tensor"),
    (lambda: ember.bmm(_t(2, 3, 4), _t(3, 4, 5)),
     r"Expected size for first two dimensions of batch2 tensor to be: \[2, 4\] but got: \[3, 4\]."),
    (lambda: ember.mv(_t(2, 3), _t(4)), r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"),
    (lambda: ember.mv(_t(2, 3), _t(3, 1)), "vector \\+ matrix @ vector expected"),
    (lambda: ember.dot(_t(2, 3), _t(3)), "1D tensors expected, but got 2D and 1D tensors"),
    (lambda: ember.dot(_t(3), _t(3, dtype=np.float64)),
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    (lambda: ember.dot(_t(3), _t(4)), r"expected tensor \[3\] and src \[4\] to have the same number of elements"),
    (lambda: ember.addmm(_t(3, 3), _t(2, 3), _t(3, 4)), "must match the existing size"),
    (lambda: ember.addmm(_t(2, 4, dtype=np.float64), _t(2, 3), _t(3, 4)), "same dtype"),
    (lambda: ember.mm(_t(2, 2, dtype=np.bool_), _t(2, 2, dtype=np.bool_)), "not implemented for 'Bool'"),
    (lambda: ember.inner(_t(2, 3), _t(2, 4)), "the last dimension must match"),
])
def test_errors(fn, msg):
    with pytest.raises(RuntimeError, match=msg):
        fn()


def test_matmul_operator_with_number_is_type_error():
    with pytest.raises(TypeError):
        _t(2, 2) @ 2
    with pytest.raises(TypeError):
        2 @ _t(2, 2)


# ---------------------------------------------------------------- OpenBLAS threads

def test_openblas_stays_single_threaded():
    # ember's own threads split large products; OpenBLAS's pool would fight them for the cores
    import ctypes
    from ember import _openblas
    lib = _openblas._lib
    assert lib is not None, "the scipy-openblas32 library was not preloaded"
    get = lib.scipy_openblas_get_num_threads
    get.restype = ctypes.c_int
    before = ember.get_num_threads()
    try:
        for n in (1, 2):
            ember.set_num_threads(n)
            assert get() == 1
    finally:
        ember.set_num_threads(before)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,k,n", [(301, 77, 65), (65, 77, 301), (129, 130, 131), (2, 4000, 300), (300, 4000, 2)])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_split_products_match_numpy(threads, m, k, n, ta, tb):
    a = rand(m, k)  # used transposed (a column-major view) when ta
    b = rand(k, n)
    before = ember.get_num_threads()
    try:
        ember.set_num_threads(threads)
        got = ember.mm(
            ember.tensor(a.T).t() if ta else ember.tensor(a), ember.tensor(b.T).t() if tb else ember.tensor(b)
        )
        close(got, a @ b, rtol=1e-10, atol=1e-10)
        ac, bc = a + 1j * a[::-1], b - 1j * b
        close(ember.tensor(ac) @ ember.tensor(bc), ac @ bc, rtol=1e-10, atol=1e-10)
    finally:
        ember.set_num_threads(before)
