"""NumPy reference optimizers, written from the update rules in the papers and in PyTorch's
documentation (not from ember's code): one function per algorithm, state in a dict, every
operation vectorized over the elements of one parameter. `ref_step(name, p, g, st, t, **hp)`
returns the new parameter; st is that parameter's state dict (mutated); t counts from 1."""
import math

import numpy as np


def _descent_grad(p, g, lr, weight_decay, maximize, decoupled=False):
    """Returns (p, g) ready for the update rule: g negated under maximize, then weight decay either
    added to g (L2) or, decoupled, applied to p as p * (1 - lr*wd)."""
    g = -g if maximize else g
    if decoupled:
        return p * (1 - lr * weight_decay), g
    return p, g + weight_decay * p


def _adam_moments(st, g, b1, b2):
    """Updates Adam's running first and second moments st["m"], st["v"] (zero before the first step)."""
    st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
    st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g


def sgd(p, g, st, t, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False):
    p, g = _descent_grad(p, g, lr, weight_decay, maximize)
    if momentum:
        b = g.copy() if t == 1 else momentum * st["b"] + (1 - dampening) * g
        st["b"] = b
        g = g + momentum * b if nesterov else b
    return p - lr * g


def adam(p, g, st, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
         maximize=False, decoupled=False):
    b1, b2 = betas
    p, g = _descent_grad(p, g, lr, weight_decay, maximize, decoupled)
    _adam_moments(st, g, b1, b2)
    v = st["v"]
    if amsgrad:  # PyTorch keeps the maximum of the raw second moment, then bias-corrects it
        st["vmax"] = np.maximum(st.get("vmax", 0.0), v)
        v = st["vmax"]
    m_hat = st["m"] / (1 - b1 ** t)
    v_hat = v / (1 - b2 ** t)
    return p - lr * m_hat / (np.sqrt(v_hat) + eps)


def adamw(p, g, st, t, weight_decay=1e-2, **kw):
    return adam(p, g, st, t, weight_decay=weight_decay, decoupled=True, **kw)


def adamax(p, g, st, t, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, maximize=False):
    b1, b2 = betas
    p, g = _descent_grad(p, g, lr, weight_decay, maximize)
    st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
    st["u"] = np.maximum(b2 * st.get("u", 0.0), np.abs(g) + eps)
    return p - lr / (1 - b1 ** t) * st["m"] / st["u"]


def nadam(p, g, st, t, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_decay=4e-3,
          decoupled_weight_decay=False, maximize=False):
    b1, b2 = betas
    p, g = _descent_grad(p, g, lr, weight_decay, maximize, decoupled_weight_decay)
    mu_t = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
    mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
    # PyTorch keeps the running product in a default-dtype (float32) scalar tensor, multiplied in float32
    st["prod"] = float(np.float32(st.get("prod", 1.0)) * np.float32(mu_t))
    _adam_moments(st, g, b1, b2)
    v_hat = st["v"] / (1 - b2 ** t)
    m_bar = (1 - mu_t) * g / (1 - st["prod"]) + mu_next * st["m"] / (1 - st["prod"] * mu_next)
    return p - lr * m_bar / (np.sqrt(v_hat) + eps)


def radam(p, g, st, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled_weight_decay=False,
          maximize=False):
    b1, b2 = betas
    p, g = _descent_grad(p, g, lr, weight_decay, maximize, decoupled_weight_decay)
    _adam_moments(st, g, b1, b2)
    m_hat = st["m"] / (1 - b1 ** t)
    rho_inf = 2 / (1 - b2) - 1
    rho_t = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
    if rho_t > 5:
        l_t = math.sqrt(1 - b2 ** t) / (np.sqrt(st["v"]) + eps)
        r_t = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        return p - lr * m_hat * l_t * r_t
    return p - lr * m_hat


def rmsprop(p, g, st, t, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
            maximize=False):
    p, g = _descent_grad(p, g, lr, weight_decay, maximize)
    st["v"] = alpha * st.get("v", 0.0) + (1 - alpha) * g * g
    v = st["v"]
    if centered:
        st["gavg"] = alpha * st.get("gavg", 0.0) + (1 - alpha) * g
        v = v - st["gavg"] ** 2
    if momentum > 0:
        st["b"] = momentum * st.get("b", 0.0) + g / (np.sqrt(v) + eps)
        return p - lr * st["b"]
    return p - lr * g / (np.sqrt(v) + eps)


def adagrad(p, g, st, t, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10,
            maximize=False):
    p, g = _descent_grad(p, g, lr, weight_decay, maximize)
    lr_t = lr / (1 + (t - 1) * lr_decay)
    st["s"] = st.get("s", initial_accumulator_value) + g * g
    return p - lr_t * g / (np.sqrt(st["s"]) + eps)


def adadelta(p, g, st, t, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=False):
    p, g = _descent_grad(p, g, lr, weight_decay, maximize)
    st["v"] = rho * st.get("v", 0.0) + (1 - rho) * g * g
    dx = np.sqrt(st.get("u", 0.0) + eps) / np.sqrt(st["v"] + eps) * g
    st["u"] = rho * st.get("u", 0.0) + (1 - rho) * dx * dx
    return p - lr * dx


def asgd(p, g, st, t, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False):
    p, g = _descent_grad(p, g, lr, weight_decay, maximize)
    eta = st.get("eta", float(np.float32(lr)))
    mu = st.get("mu", 1.0)
    p = p * (1 - lambd * eta) - eta * g
    st["ax"] = p.copy() if mu == 1 else st["ax"] + mu * (p - st["ax"])
    # eta and mu live in default-dtype (float32) scalar tensors, as in PyTorch
    st["eta"] = float(np.float32(lr / (1 + lambd * lr * t) ** alpha))
    st["mu"] = float(np.float32(1 / max(1, t - t0)))
    return p


def rprop(p, g, st, t, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False):
    g = -g if maximize else g
    prev = st.get("prev", np.zeros_like(p))
    size = st.get("size", np.full_like(p, lr))
    prod = g * prev
    size = np.clip(np.where(prod > 0, size * etas[1], np.where(prod < 0, size * etas[0], size)), *step_sizes)
    g = np.where(prod < 0, 0.0, g)  # after a sign change: no move, and no sign test next step
    st["prev"], st["size"] = g, size
    return p - np.sign(g) * size


def sparse_adam(p, g, st, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
    """Lazy Adam: only elements with a nonzero gradient get their moments and values updated."""
    b1, b2 = betas
    g = -g if maximize else g
    on = g != 0
    m = st.get("m", np.zeros_like(p))
    v = st.get("v", np.zeros_like(p))
    m = np.where(on, b1 * m + (1 - b1) * g, m)
    v = np.where(on, b2 * v + (1 - b2) * g * g, v)
    st["m"], st["v"] = m, v
    step = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    return np.where(on, p - step * m / (np.sqrt(v) + eps), p)


REFERENCES = dict(SGD=sgd, Adam=adam, AdamW=adamw, Adamax=adamax, NAdam=nadam, RAdam=radam, RMSprop=rmsprop,
                  Adagrad=adagrad, Adadelta=adadelta, ASGD=asgd, Rprop=rprop, SparseAdam=sparse_adam)


def ref_step(name, p, g, st, t, **hp):
    return REFERENCES[name](p, g, st, t, **hp)
