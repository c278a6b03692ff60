"""AES-128 in embercsprng: the FIPS-197 and NIST SP 800-38A vectors on every backend this CPU has,
encrypt/decrypt byte for byte against the `cryptography` package (OpenSSL) on every dtype and odd
sizes, round trips, and the error cases."""
import numpy as np
import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

import ember
import embercsprng as csprng

BACKENDS = ["portable"] + (["aes-ni"] if csprng.supports_aes_ni() else []) + \
    (["vaes"] if csprng.supports_aes_ni() and csprng.aes_backend() == "vaes" else [])
DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128",
          "bool"]


def u8(hexstr):
    return ember.tensor(list(bytes.fromhex(hexstr)), dtype=ember.uint8)


def raw(t):
    return t.contiguous().numpy().tobytes()


def openssl(key, data, mode, decrypt=False, nonce=bytes(16)):
    cipher = Cipher(algorithms.AES(key), modes.ECB() if mode == "ecb" else modes.CTR(nonce))
    op = cipher.decryptor() if decrypt else cipher.encryptor()
    return op.update(data) + op.finalize()


def random_tensor(dtype, n, rng):
    if dtype == "bool":
        return ember.tensor(rng.integers(0, 2, n).astype(bool))
    if dtype.startswith("complex"):
        return ember.tensor((rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype))
    if dtype.startswith("float"):
        return ember.tensor(rng.standard_normal(n).astype(dtype))
    info = np.iinfo(dtype)
    return ember.tensor(rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype))


@pytest.mark.parametrize("backend", BACKENDS)
def test_fips197_and_sp800_38a_vectors(backend):
    with csprng.use_aes_backend(backend):
        assert csprng.aes_backend() == backend
        out = ember.empty(16, dtype=ember.uint8)
        # FIPS-197 appendix C.1 and appendix B
        csprng.encrypt(u8("00112233445566778899aabbccddeeff"), out, "000102030405060708090a0b0c0d0e0f")
        assert raw(out).hex() == "69c4e0d86a7b0430d8cdb78070b4c55a"
        csprng.encrypt(u8("3243f6a8885a308d313198a2e0370734"), out, "2b7e151628aed2a6abf7158809cf4f3c")
        assert raw(out).hex() == "3925841d02dc09fbdc118597196a0b32"
        key = "2b7e151628aed2a6abf7158809cf4f3c"
        plain = u8("6bc1bee22e409f96e93d7e117393172a" "ae2d8a571e03ac9c9eb76fac45af8e51"
                   "30c81c46a35ce411e5fbc1191a0a52ef" "f69f2445df4f9b17ad2b417be66c3710")
        out = ember.empty(64, dtype=ember.uint8)
        csprng.encrypt(plain, out, key, mode="ecb")  # SP 800-38A F.1.1
        assert raw(out).hex() == ("3ad77bb40d7a3660a89ecaf32466ef97" "f5d3d58503b9699de785895a96fdbaaf"
                                  "43b1cd7f598ece23881b00e3ed030688" "7b0c785e27e8ad3f8223207104725dd4")
        csprng.encrypt(plain, out, key, mode="ctr", nonce="f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")  # F.5.1
        assert raw(out).hex() == ("874d6191b620e3261bef6864990db6ce" "9806f66b7970fdff8617187bb9fffdff"
                                  "5ae4df3edbd5d35e5b4f09020db03eab" "1e031dda2fbe03d1792170a0f3009cee")
        back = ember.empty(64, dtype=ember.uint8)
        csprng.decrypt(ember.tensor(list(bytes.fromhex("3ad77bb40d7a3660a89ecaf32466ef97")), dtype=ember.uint8),
                       back[:16], key)
        assert raw(back[:16]).hex() == "6bc1bee22e409f96e93d7e117393172a"


@pytest.mark.parametrize("mode", ["ecb", "ctr"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_matches_openssl_on_every_dtype_and_odd_sizes(dtype, mode):
    rng = np.random.default_rng(hash((dtype, mode)) % 2 ** 32)
    for n in (1, 3, 17, 255, 4096 * 16 + 7):  # the last spans several parallel chunks and a VAES tail
        x = random_tensor(dtype, n, rng)
        key = bytes(rng.integers(0, 256, 16, dtype=np.uint8))
        data = raw(x)
        padded = data + bytes(-len(data) % 16)
        out = ember.empty(len(padded), dtype=ember.uint8)
        csprng.encrypt(x, out, key, mode=mode)
        assert raw(out) == openssl(key, padded, mode), f"{dtype} n={n}"
        back = ember.empty_like(x)
        csprng.decrypt(out, back, key, mode=mode)
        assert raw(back) == data, f"decrypt(encrypt(x)) != x for {dtype} n={n}"


@pytest.mark.parametrize("mode", ["ecb", "ctr"])
def test_backends_agree(mode):
    rng = np.random.default_rng(1)
    x = ember.tensor(rng.integers(0, 256, 16 * 301 + 5, dtype=np.uint8))
    outs = []
    for backend in BACKENDS:
        with csprng.use_aes_backend(backend):
            out = ember.empty(16 * 302, dtype=ember.uint8)
            outs.append(raw(csprng.encrypt(x, out, "000102030405060708090a0b0c0d0e0f", mode=mode)))
    assert all(o == outs[0] for o in outs)


def test_output_of_another_dtype_and_strided_input():
    x = ember.arange(40, dtype=ember.float32).reshape(5, 8)[:, ::2]  # non-contiguous input: its logical bytes
    out = ember.empty(20, dtype=ember.float64)  # 160 bytes, enough for 80 bytes of input
    key = bytes(16)
    csprng.encrypt(x, out, key)
    assert raw(out)[:80] == openssl(key, raw(x), "ecb")


def test_errors():
    x, out = ember.zeros(4), ember.empty(16, dtype=ember.uint8)
    with pytest.raises(ValueError, match="an aes128 key has 16 bytes, got 15"):
        csprng.encrypt(x, out, bytes(15))
    with pytest.raises(TypeError, match="key must be a uint8 tensor"):
        ember.ops.csprng.encrypt(x, out, ember.zeros(16), "aes128", "ecb", None)
    with pytest.raises(ValueError, match="output is too small: it has 15 bytes"):
        csprng.encrypt(x, ember.empty(15, dtype=ember.uint8), bytes(16))
    with pytest.raises(ValueError, match="unknown mode 'cbc'"):
        csprng.encrypt(x, out, bytes(16), mode="cbc")
    with pytest.raises(ValueError, match="unknown cipher 'aes256'"):
        csprng.encrypt(x, out, bytes(16), cipher="aes256")
    with pytest.raises(ValueError, match="output must be contiguous"):
        csprng.encrypt(x, ember.empty(64, dtype=ember.uint8)[::2], bytes(16))
    with pytest.raises(ValueError, match="a nonce is for mode='ctr'"):
        csprng.encrypt(x, out, bytes(16), nonce=bytes(16))
    with pytest.raises(ValueError, match="input is too small"):
        csprng.decrypt(ember.zeros(2), ember.empty(16, dtype=ember.uint8), bytes(16))
    with pytest.raises(ValueError, match="not a hex string"):
        csprng.aes128_key_tensor("xyz")
    with pytest.raises(ValueError, match="unknown backend"):
        with csprng.use_aes_backend("sse9"):
            pass
