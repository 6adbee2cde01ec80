"""The update rules of MXNet 1.9.1's optimizers on torch tensors, each written once: the update
operators (``sgd_update``, ``adam_update``, ..., ``ops/optimizer_updates.py``) and the optimizer
classes (``mx.optimizer.SGD``, ...) both run these kernels, in place on the weight and the state
tensors.  The scalar helpers compute in the weight's precision, as MXNet's fused kernels did."""
from __future__ import annotations

import math

import numpy as np
import torch

def _kernel_clip(tensor, clip_gradient):
    """Clip as MXNet's fused update operators do: only for a set, non-negative bound.

    The optimizers pass ``clip_gradient`` to the operator only when it is truthy, and the
    operator clips only when it is >= 0; so 0 and negative bounds mean "no clipping".
    """
    if clip_gradient and clip_gradient >= 0:
        return tensor.clamp(-clip_gradient, clip_gradient)
    return tensor


def _python_clip(tensor, clip_gradient):
    """Clip as MXNet's Python-level update rules do: whenever the bound is not None."""
    if clip_gradient is not None:
        return tensor.clamp(-clip_gradient, clip_gradient)
    return tensor


def _one_minus(value, tensor):
    """``1 - value`` computed in the tensor's precision (float32 unless float64), as MXNet's fused
    kernels do after casting their float parameters to the weight's type; in float32,
    ``1 - 0.999`` is 0.00099998713, not 0.001."""
    scalar_type = np.float64 if tensor.dtype == torch.float64 else np.float32
    return float(scalar_type(1) - scalar_type(value))


def _power(base, exponent, tensor):
    """``base ** exponent`` in the tensor's precision (float32 unless float64), as MXNet's kernels."""
    scalar_type = np.float64 if tensor.dtype == torch.float64 else np.float32
    return float(scalar_type(base) ** scalar_type(exponent))


def adadelta_step(weight, grad, acc_g, acc_delta, *, wd, rho, epsilon, rescale_grad, clip_gradient):
    """One AdaDelta step on torch tensors, in place on ``weight`` and both accumulators."""
    g = _python_clip(grad * rescale_grad, clip_gradient)
    acc_g.mul_(rho).add_((1.0 - rho) * g * g)
    delta = (acc_delta + epsilon).sqrt() / (acc_g + epsilon).sqrt() * g
    acc_delta.mul_(rho).add_((1.0 - rho) * delta * delta)
    weight.sub_(delta + wd * weight)


def adagrad_step(weight, grad, history, *, lr, wd, eps, rescale_grad, clip_gradient):
    """One AdaGrad step on torch tensors, in place on ``weight`` and ``history``."""
    g = _python_clip(grad * rescale_grad, clip_gradient)
    history.add_(g * g)
    div = g / (history + eps).sqrt()
    weight.add_((div + weight * wd) * -lr)


def adam_step(weight, grad, mean, var, *, lr, wd, beta1, beta2, epsilon, rescale_grad, clip_gradient):
    """One Adam step on torch tensors with the bias correction already folded into ``lr``."""
    g = _kernel_clip(grad.to(weight.dtype) * rescale_grad + wd * weight, clip_gradient)
    mean.mul_(beta1).add_(_one_minus(beta1, weight) * g)
    var.mul_(beta2).add_(_one_minus(beta2, weight) * g * g)
    weight.sub_(lr * mean / (var.sqrt() + epsilon))


def adamax_step(weight, grad, mean, u, *, lr, wd, beta1, beta2, rescale_grad, clip_gradient):
    """One AdaMax step on torch tensors with the bias correction folded into ``lr``."""
    g = _python_clip(grad * rescale_grad + wd * weight, clip_gradient)
    mean.mul_(beta1).add_((1.0 - beta1) * g)
    torch.maximum(beta2 * u, g.abs(), out=u)
    weight.sub_(lr * mean / u)


def dcasgd_step(weight, grad, momentum_buffer, previous_weight, *, lr, wd, momentum, lamda,
                rescale_grad, clip_gradient):
    """One DCASGD step on torch tensors, in place on ``weight``, the buffer and ``previous_weight``."""
    g = _python_clip(grad * rescale_grad, clip_gradient)
    step = -lr * (g + wd * weight + lamda * g * g * (weight - previous_weight))
    if momentum_buffer is not None:
        momentum_buffer.mul_(momentum).add_(step)
        step = momentum_buffer
    previous_weight.copy_(weight)
    weight.add_(step)


def ftml_step(weight, grad, d, v, z, *, lr, wd, t, beta1, beta2, epsilon, rescale_grad, clip_gradient):
    """One FTML step on torch tensors, in place on ``weight`` and ``d``, ``v``, ``z``."""
    g = _kernel_clip(grad.to(weight.dtype) * rescale_grad + wd * weight, clip_gradient)
    v.mul_(beta2).add_(_one_minus(beta2, weight) * g * g)
    d_t = _one_minus(_power(beta1, t, weight), weight) / lr \
        * ((v / _one_minus(_power(beta2, t, weight), weight)).sqrt() + epsilon)
    z.mul_(beta1).add_(_one_minus(beta1, weight) * g - (d_t - beta1 * d) * weight)
    d.copy_(d_t)
    weight.copy_(-z / d_t)


def ftrl_step(weight, grad, z, n, *, lr, wd, lamda1, beta, rescale_grad, clip_gradient):
    """One FTRL step on torch tensors, in place on ``weight``, ``z`` and ``n``."""
    g = _kernel_clip(grad.to(weight.dtype) * rescale_grad, clip_gradient)
    z.add_(g - ((n + g * g).sqrt() - n.sqrt()) * weight / lr)
    n.add_(g * g)
    value = (torch.sign(z) * lamda1 - z) / ((beta + n.sqrt()) / lr + wd)
    weight.copy_(value * (z.abs() > lamda1).to(weight.dtype))


def lamb_step(weight, grad, mean, var, *, lr, wd, t, beta1, beta2, epsilon, bias_correction,
              lower_bound, upper_bound, rescale_grad, clip_gradient):
    """One LAMB step on torch tensors, in place on ``weight``, ``mean`` and ``var``."""
    g = _kernel_clip(grad.to(weight.dtype) * rescale_grad, clip_gradient)
    mean.mul_(beta1).add_(_one_minus(beta1, weight) * g)
    var.mul_(beta2).add_(_one_minus(beta2, weight) * g * g)
    if bias_correction:
        mean_hat = mean / _one_minus(_power(beta1, t, weight), weight)
        var_hat = var / _one_minus(_power(beta2, t, weight), weight)
        update = mean_hat / (var_hat.sqrt() + epsilon) + wd * weight
    else:
        update = mean / (var.sqrt() + epsilon) + wd * weight
    r1 = torch.linalg.vector_norm(weight.float())
    r2 = torch.linalg.vector_norm(update.float())
    if lower_bound:
        r1 = torch.clamp(r1, min=lower_bound)
    if upper_bound:
        r1 = torch.clamp(r1, max=upper_bound)
    ratio = torch.where((r1 > 0) & (r2 > 0), r1 / r2, torch.ones_like(r1))
    weight.sub_((lr * ratio).to(weight.dtype) * update)


def nag_step(weight, grad, momentum_buffer, *, lr, wd, momentum, rescale_grad, clip_gradient):
    """One NAG step on torch tensors, in place; ``momentum_buffer`` None means plain SGD."""
    if momentum_buffer is None:
        sgd_step(weight, grad, None, lr=lr, wd=wd, momentum=0.0, rescale_grad=rescale_grad,
                 clip_gradient=clip_gradient)
        return
    g = _kernel_clip(grad.to(weight.dtype) * rescale_grad, clip_gradient)
    momentum_buffer.mul_(momentum)
    step = lr * (g + wd * weight)
    weight.add_(momentum * (momentum_buffer - step) - step)
    momentum_buffer.sub_(lr * (g + wd * weight))


def rmsprop_step(weight, grad, n, *, lr, wd, gamma1, epsilon, rescale_grad, clip_gradient, clip_weights):
    """One plain RMSProp step on torch tensors, in place on ``weight`` and ``n``."""
    g = _kernel_clip(grad.to(weight.dtype) * rescale_grad + wd * weight, clip_gradient)
    n.mul_(gamma1).add_(_one_minus(gamma1, weight) * g * g)
    weight.sub_(lr * g / (n + epsilon).sqrt())
    if clip_weights and clip_weights >= 0:
        weight.clamp_(-clip_weights, clip_weights)


def rmsprop_centered_step(weight, grad, n, mean_g, delta, *, lr, wd, gamma1, gamma2, epsilon,
                          rescale_grad, clip_gradient, clip_weights):
    """One centered RMSProp step on torch tensors, in place on ``weight`` and the three states."""
    g = _kernel_clip(grad.to(weight.dtype) * rescale_grad + wd * weight, clip_gradient)
    n.mul_(gamma1).add_(_one_minus(gamma1, weight) * g * g)
    mean_g.mul_(gamma1).add_(_one_minus(gamma1, weight) * g)
    delta.mul_(gamma2).sub_(lr * g / (n - mean_g * mean_g + epsilon).sqrt())
    weight.add_(delta)
    if clip_weights and clip_weights >= 0:
        weight.clamp_(-clip_weights, clip_weights)


def sgd_step(weight, grad, momentum_buffer, *, lr, wd, momentum, rescale_grad, clip_gradient):
    """One SGD step on torch tensors, in place on ``weight`` (and ``momentum_buffer``).

    ``grad`` is cast to ``weight``'s dtype and never modified; ``momentum_buffer`` may be
    None (plain SGD).  Without clipping the rescale is folded into the step's scalar, so no
    temporary the size of the gradient is allocated.
    """
    if grad.dtype != weight.dtype:
        grad = grad.to(weight.dtype)
    if clip_gradient and clip_gradient >= 0:
        grad = _kernel_clip(grad * rescale_grad, clip_gradient)
        scale = 1.0
    else:
        scale = rescale_grad
    if momentum_buffer is None:
        if wd:
            weight.mul_(1.0 - lr * wd)
        weight.add_(grad, alpha=-lr * scale)
    else:
        momentum_buffer.mul_(momentum)
        if wd:
            momentum_buffer.add_(weight, alpha=-lr * wd)
        momentum_buffer.add_(grad, alpha=-lr * scale)
        weight.add_(momentum_buffer)


def sgd_step_foreach(weights, grads, momentum_buffers, *, lr, wd, momentum, rescale_grad):
    """``sgd_step`` (without clipping) on lists of same-dtype tensors with torch's multi-tensor
    kernels: the same operations in the same order, so the same numbers, in a few dispatches.
    ``momentum_buffers`` is a list aligned with ``weights`` or None (plain SGD)."""
    if momentum_buffers is None:
        if wd:
            torch._foreach_mul_(weights, 1.0 - lr * wd)
        torch._foreach_add_(weights, grads, alpha=-lr * rescale_grad)
    else:
        torch._foreach_mul_(momentum_buffers, momentum)
        if wd:
            torch._foreach_add_(momentum_buffers, weights, alpha=-lr * wd)
        torch._foreach_add_(momentum_buffers, grads, alpha=-lr * rescale_grad)
        torch._foreach_add_(weights, momentum_buffers)


def sgld_step(weight, grad, *, lr, wd, rescale_grad, clip_gradient):
    """One SGLD step on torch tensors, in place on ``weight``."""
    g = _python_clip(grad * rescale_grad, clip_gradient)
    weight.add_(-lr / 2 * (g + wd * weight))
    weight.add_(torch.randn_like(weight) * math.sqrt(lr))


def signsgd_step(weight, grad, *, lr, wd, rescale_grad, clip_gradient):
    """One signSGD step on torch tensors, in place on ``weight``."""
    g = _kernel_clip(grad.to(weight.dtype) * rescale_grad, clip_gradient)
    weight.mul_(1 - lr * wd).sub_(lr * torch.sign(g))


def signum_step(weight, grad, momentum_buffer, *, lr, wd, momentum, wd_lh, rescale_grad, clip_gradient):
    """One Signum step on torch tensors, in place on ``weight`` and ``momentum_buffer``."""
    g = _kernel_clip(grad.to(weight.dtype) * rescale_grad, clip_gradient)
    momentum_buffer.mul_(momentum).sub_(_one_minus(momentum, weight) * (g + wd * weight))
    weight.mul_(1 - lr * wd_lh).add_(lr * torch.sign(momentum_buffer))
