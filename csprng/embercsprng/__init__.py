"""embercsprng: cryptographically secure random numbers for ember.

Generators usable wherever ember takes `generator=` (rand, randn, randint, randperm, bernoulli,
and the in-place samplers), drawing their bits from AES-128 in counter mode, and AES-128
encrypt/decrypt over any tensor's raw bytes. See the package README for the threat model, how keys
are drawn and the CTR layout."""
import contextlib
import os
import secrets

import ember as _ember

from . import _C  # noqa: F401  (loading it registers ember.ops.csprng)

from ._version import __version__  # noqa: F401
ember_version = _ember.__version__

_errors = _ember._C._take_registration_errors()
if _errors:
    raise RuntimeError("embercsprng: registering its ops failed: " + "; ".join(_errors))

_ops = _ember.ops.csprng
BACKENDS = ("portable", "aes-ni", "vaes")

__all__ = ["create_random_device_generator", "create_mt19937_generator", "create_const_generator",
           "aes128_key_tensor", "encrypt", "decrypt", "aes_backend", "use_aes_backend", "supports_aes_ni"]


def create_random_device_generator(token=None):
    """A non-deterministic generator: every random op call is keyed with 16 fresh bytes from the
    OS (getrandom; or read from the device file `token`, e.g. "/dev/urandom")."""
    if token is not None and not isinstance(token, str):
        raise TypeError(f"create_random_device_generator: token must be a str or None, got {type(token).__name__}")
    if token not in (None, "default", "getrandom") and not os.path.exists(token):
        raise ValueError(f"create_random_device_generator: no random device '{token}'")
    return _ops.create_random_device_generator(token)


def create_mt19937_generator(seed=0):
    """A reproducible generator keyed from std::mt19937 seeded with `seed` (its first four outputs)."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"create_mt19937_generator: seed must be an int, got {type(seed).__name__}")
    if not 0 <= seed < 2 ** 64:
        raise ValueError(f"create_mt19937_generator: seed must be in [0, 2**64), got {seed}")
    return _ops.create_mt19937_generator(seed - 2 ** 64 if seed >= 2 ** 63 else seed)


def create_const_generator(key):
    """A reproducible generator keyed directly with a 128-bit key (anything aes128_key_tensor takes)."""
    return _ops.create_const_generator(aes128_key_tensor(key))


def aes128_key_tensor(key=None):
    """A 128-bit AES key as a uint8 tensor of 16 elements, from: nothing (16 random bytes from the
    OS), bytes of length 16, a hex string of 32 digits, an int in [0, 2**128) (big-endian), a
    sequence of 16 ints in [0, 255], or a uint8 tensor of 16 elements."""
    if key is None:
        raw = secrets.token_bytes(16)
    elif isinstance(key, _ember.Tensor):
        if key.dtype != _ember.uint8 or key.numel() != 16:
            raise ValueError(f"aes128_key_tensor: a key tensor must be uint8 with 16 elements, got {key.dtype} "
                             f"with {key.numel()}")
        return key.reshape(16).contiguous()
    elif isinstance(key, (bytes, bytearray)):
        raw = bytes(key)
    elif isinstance(key, str):
        try:
            raw = bytes.fromhex(key)
        except ValueError:
            raise ValueError(f"aes128_key_tensor: '{key}' is not a hex string") from None
    elif isinstance(key, int) and not isinstance(key, bool):
        if not 0 <= key < 2 ** 128:
            raise ValueError(f"aes128_key_tensor: an int key must be in [0, 2**128), got {key}")
        raw = key.to_bytes(16, "big")
    else:
        try:
            values = [int(v) for v in key]
        except TypeError:
            raise TypeError(f"aes128_key_tensor: cannot make a key of a {type(key).__name__}") from None
        if any(not 0 <= v <= 255 for v in values):
            raise ValueError("aes128_key_tensor: key bytes must be in [0, 255]")
        raw = bytes(values)
    if len(raw) != 16:
        raise ValueError(f"aes128_key_tensor: an aes128 key has 16 bytes, got {len(raw)}")
    return _ember.tensor(list(raw), dtype=_ember.uint8)


def _nonce(nonce):
    return None if nonce is None else aes128_key_tensor(nonce)


def encrypt(input, output, key, cipher="aes128", mode="ecb", *, nonce=None):
    """Encrypts input's raw bytes (any dtype), zero-padded to whole 16-byte blocks, into output's
    bytes (output must be contiguous and hold them). mode "ecb", or "ctr" with block i encrypting
    the big-endian 128-bit counter nonce + i (nonce 0 by default). Returns output."""
    return _ops.encrypt(input, output, aes128_key_tensor(key), cipher, mode, _nonce(nonce))


def decrypt(input, output, key, cipher="aes128", mode="ecb", *, nonce=None):
    """The inverse of encrypt: fills output's bytes from the first whole blocks of input."""
    return _ops.decrypt(input, output, aes128_key_tensor(key), cipher, mode, _nonce(nonce))


def aes_backend():
    """The AES implementation in use: "vaes" (AVX-512), "aes-ni", or "portable" (constant time)."""
    return BACKENDS[_ops._best_backend() if _forced is None else _forced]


_forced = None  # the backend use_aes_backend set, if any


def supports_aes_ni():
    return _ops._best_backend() >= 1


@contextlib.contextmanager
def use_aes_backend(name):
    """Runs the body with one AES backend (for tests and benchmarks; the output never depends on it)."""
    global _forced
    if name not in BACKENDS:
        raise ValueError(f"use_aes_backend: unknown backend '{name}' (one of {', '.join(BACKENDS)})")
    previous = _forced
    _forced = _ops._force_backend(BACKENDS.index(name))
    try:
        yield
    finally:
        _ops._force_backend(-1 if previous is None else previous)
        _forced = previous
