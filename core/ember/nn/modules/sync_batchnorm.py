"""SyncBatchNorm: batch norm whose training statistics are those of the whole batch spread over a process
group's ranks (each rank's mean, squared deviations and count gathered and combined exactly), with the
matching backward: the per-channel sums of grad and grad * (x - mean) are all-reduced, so the input
gradient is the one a single process would compute on the whole batch (scaled by the world size, which
DDP's averaging of parameter gradients undoes). Outside training, or on one rank, it is BatchNorm."""
from __future__ import annotations

import ember
from ember.autograd.function import Function

from .. import functional as F
from .normalization import _BatchNorm

__all__ = ["SyncBatchNorm"]


def _dist():
    from ember import distributed
    return distributed


class _SyncBatchNormFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, process_group, world_size):
        dist = _dist()
        channels = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        x = input.detach()
        count = x.numel() // channels if channels else 0
        local = ember.zeros(2 * channels + 1, dtype=ember.float64)
        if count > 0:
            mean = x.mean(dims).double()
            local[:channels] = mean
            centred = x.double() - mean.view([1, channels] + [1] * (x.dim() - 2))
            local[channels:2 * channels] = (centred ** 2).sum(dims)
        local[2 * channels] = count
        gathered = [ember.zeros_like(local) for _ in range(world_size)]
        dist.all_gather(gathered, local, group=process_group)
        stats = ember.stack(gathered)
        counts = stats[:, 2 * channels]
        total = float(counts.sum())
        if total <= 1 and input.requires_grad:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{list(input.shape)}")
        means, m2s = stats[:, :channels], stats[:, channels:2 * channels]
        global_mean = (means * counts[:, None]).sum(0) / total
        m2 = (m2s + counts[:, None] * (means - global_mean) ** 2).sum(0)
        var = m2 / total
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(global_mean.to(running_mean.dtype), alpha=momentum)
        if running_var is not None:
            unbiased = m2 / max(total - 1, 1)
            running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype), alpha=momentum)
        shape = [1, channels] + [1] * (input.dim() - 2)
        mean_t = global_mean.to(input.dtype).view(shape)
        invstd = (var + eps).rsqrt().to(input.dtype).view(shape)
        out = (x - mean_t) * invstd
        if weight is not None:
            out = out * weight.detach().view(shape) + bias.detach().view(shape)
        ctx.save_for_backward(x, weight, mean_t, invstd)
        ctx.process_group, ctx.total, ctx.dims = process_group, total, dims
        return out

    @staticmethod
    def backward(ctx, grad_output):
        dist = _dist()
        x, weight, mean, invstd = ctx.saved_tensors
        channels = x.shape[1]
        xmu = x - mean
        sum_dy = grad_output.sum(ctx.dims)
        sum_dy_xmu = (grad_output * xmu).sum(ctx.dims)
        grad_weight = grad_bias = None
        if weight is not None:
            grad_weight = sum_dy_xmu * invstd.reshape(-1)
            grad_bias = sum_dy.clone()
        grad_input = None
        if ctx.needs_input_grad[0]:
            both = ember.cat([sum_dy, sum_dy_xmu])
            dist.all_reduce(both, group=ctx.process_group)
            shape = mean.shape
            mean_dy = (both[:channels] / ctx.total).view(shape)
            mean_dy_xmu = (both[channels:] / ctx.total).view(shape)
            scale = invstd if weight is None else invstd * weight.view(shape)
            grad_input = (grad_output - mean_dy - xmu * invstd * invstd * mean_dy_xmu) * scale
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    """torch.nn.SyncBatchNorm: BatchNorm over N-D input (N >= 2) whose statistics span process_group."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        if input.shape[1] != self.num_features:
            raise ValueError(f"SyncBatchNorm: expected input with {self.num_features} channels (num_features), "
                             f"got input of shape {list(input.shape)}")

    def forward(self, input):
        self._check_input(input)
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                momentum = 1.0 / float(self.num_batches_tracked.item())
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        running_mean = self.running_mean if not self.training or self.track_running_stats else None
        running_var = self.running_var if not self.training or self.track_running_stats else None
        need_sync = bn_training and self.training
        if need_sync:
            dist = _dist()
            need_sync = dist.is_initialized()
            if need_sync:
                group = self.process_group if self.process_group is not None else dist.GroupMember.WORLD
                world_size = dist.get_world_size(group)
                need_sync = world_size > 1
        if not need_sync:
            return F.batch_norm(input, running_mean, running_var, self.weight, self.bias, bn_training, momentum,
                                self.eps)
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, running_mean, running_var, self.eps,
                                            momentum, group, world_size)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """module with every BatchNorm*D replaced by a SyncBatchNorm holding the same parameters, buffers and
        training mode (recursively)."""
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            converted = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                      module.track_running_stats, process_group)
            if module.affine:
                with ember.no_grad():
                    converted.weight = module.weight
                    converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return converted
