"""Scale-invariant signal-to-distortion ratio (Le Roux et al. 2019) and its permutation-invariant form: the
separation recipe's training loss (negated) and its held-out figure (the improvement over the mixture)."""
import itertools

import ember


def si_sdr(estimate, reference, eps=1e-8):
    """SI-SDR in dB over the last dimension: both signals made zero-mean, the reference scaled by the projection
    of the estimate onto it (alpha = <s_hat, s> / <s, s>), and 10 log10(|alpha s|^2 / |s_hat - alpha s|^2)."""
    estimate = estimate - estimate.mean(-1, keepdim=True)
    reference = reference - reference.mean(-1, keepdim=True)
    alpha = (estimate * reference).sum(-1, keepdim=True) / (reference.square().sum(-1, keepdim=True) + eps)
    target = alpha * reference
    noise = estimate - target
    return 10 * ember.log10((target.square().sum(-1) + eps) / (noise.square().sum(-1) + eps))


def permutation_invariant_si_sdr(estimates, references):
    """(batch, sources, time) each -> (the best permutation's mean SI-SDR per item (batch,), the permutation per
    item as a (batch, sources) index tensor: estimate perm[i, k] goes with reference k)."""
    sources = references.shape[1]
    perms = list(itertools.permutations(range(sources)))
    scores = ember.stack([si_sdr(estimates[:, list(p)], references).mean(-1) for p in perms], dim=1)
    best, which = scores.max(dim=1)
    table = ember.tensor(perms, dtype=ember.int64)
    return best, table[which]


def pit_loss(estimates, references):
    """Negative permutation-invariant SI-SDR, averaged over the batch (what Conv-TasNet is trained with)."""
    best, _ = permutation_invariant_si_sdr(estimates, references)
    return -best.mean()


def si_sdr_improvement(estimates, references, mixture):
    """Per item: SI-SDR of the best-permuted estimates minus SI-SDR of the mixture itself as every source's
    estimate, both averaged over the sources; returns (improvement, estimate SI-SDR, mixture SI-SDR)."""
    best, _ = permutation_invariant_si_sdr(estimates, references)
    baseline = si_sdr(mixture.expand_as(references), references).mean(-1)
    return best - baseline, best, baseline
